"""``HW``: hardware allowlists, precision x GPU generation, VRAM fit.

``facts.py`` holds what the family's rules share (hardware profiles from the taxonomy, a
variant's requirement); every other module holds one rule or a tight group of rules.
"""
