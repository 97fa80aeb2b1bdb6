"""``VER``: minimum vLLM versions, the nightly flag, Docker image tags, the guide's stated
version, and the recipe dates.

What the rules read (the release list of a run, the ``min_vllm_version`` fields, Docker
image references and the texts that state versions) is shared with other families, in
:mod:`validator.analysis.stated_versions`, :mod:`validator.analysis.versions` and
:mod:`validator.analysis.version_prose`; every module here holds one rule or a tight
group of rules.
"""
