"""``REF``: references between documents (a recipe's names of strategies, hardware,
features, modes, variants and other recipes; what the recipes site renders from them).

``facts.py`` holds what the family's rules share (the recipe index, the model id a file
path spells); every other module holds one rule or a tight group of rules.
"""
