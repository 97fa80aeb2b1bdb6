"""Evidence: facts with line-anchored citations, reported figures, editorial text, records.

``cite``       GitHub blob URLs with ``#L<line>`` anchors from a document's source map
``facts``      what a recipe states (or what follows from it), each with an evidence class
``reported``   figures the guide reports (KV cache, concurrency, acceptance, throughput,
               accuracy), never presented as measured
``editorial``  template-generated sections, every paragraph citing lines
``model``      the pydantic record model (``schemas/record.schema.json`` is generated from it)
``record``     assembles one record for one ``(repository, commit, path)``
``attest``     in-toto Statement v1 wrapping
``publish``    atomic, idempotent publishing of records plus ``index.json``
"""
