"""Render recipes exactly as the recipes site does (a Python port of its behaviour).

See :mod:`validator.render.renderer` for the typed API (:func:`render`, :func:`render_all`)
and :mod:`validator.render.synthesis` for the port of the site's ``resolveCommand``.
"""
