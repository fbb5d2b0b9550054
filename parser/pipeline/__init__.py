"""Raw text to trees through declared stages, and the services both faces (the command line and
the Python API) call: which model, tagger and tokenizer a parse opens, and the pipeline it runs.

- stage: the stage contract (layers read and provided; readers, stages, writers);
- pipeline: Pipeline, the one runner of stages on streams and on lists;
- word_stages, bunsetsu_stages: the stages of word-level (UD) and Japanese parsing;
- dependency_service, bunsetsu_service: opening a parser and building its pipelines.
"""
