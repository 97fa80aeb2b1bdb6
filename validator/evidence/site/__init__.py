"""The static catalogue of published records (``recipe-check publish ... --site DIR``):
plain HTML, CSS and a small script generated from the record files, readable from disk."""

from validator.evidence.site.build import (
    SiteError,
    SiteRefused,
    SiteResult,
    build_site,
)

__all__ = ["SiteError", "SiteRefused", "SiteResult", "build_site"]
