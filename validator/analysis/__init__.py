"""What the rules of several families compute from a recipe: the domain code below the
rule families (``validator/rules/<family>/``) and above the data sources.

Recipe data read defensively (``recipe_data``), the minimum vLLM a selection needs
(``versions``, ``stated_versions``, ``version_prose``), which CLI registry a list of
arguments is checked against (``cli_data``, ``cli_plan``), the install range a user gets
(``install_range``, ``release_range``), where a recipe declares arguments (``arg_layers``),
the flag engine and its values model (``flag_engine``, ``flag_values``, ``flag_types``,
``flag_cascade``), what bash makes of printed text (``shell_words``, ``shell_hazards``),
the version and image a guide section states (``guide_sections``, ``guide_images``) and
the facts of the commands the site renders (``rendered_commands``).

Nothing here declares a rule or imports a family; this ``__init__`` imports nothing.
"""
