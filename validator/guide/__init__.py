"""Reading the markdown ``guide`` of a recipe: its fenced shell commands."""
