"""recipe-check: provenance and validation for vLLM serving recipes.

The pipeline, one package per stage (see ``docs/architecture.md``):

``source``  where bytes come from (local tree, git, HTTP, snapshots) -> bytes + ``Provenance``
``load``    YAML -> plain data + ``SourceMap`` (JSON Pointer -> line/column)
``schema``  JSON Schema validation, errors mapped to lines
``context`` taxonomy, strategies and sibling recipes of the same revision
``checks``  one module per rule family, each rule a registered unit
``vllm_cli`` what ``vllm serve`` accepts, per released version
``evidence`` facts with line-anchored citations; records
``report``  one reporter per output format
"""

__version__ = "0.1.0"
