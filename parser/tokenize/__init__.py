"""Sentence splitting and tokenization of raw text by UD English (EWT) conventions.

- treebank_text: a treebank's sentences, tokens and raw text (conllu_to_text.pl's);
- chunk_rules: the tokens of a whitespace-free chunk (rules with a learned lexicon);
- words: the words of a token (multiword tokens: don't -> do n't);
- sentence_split: sentence boundaries by a linear classifier over binary features;
- segmenter: text -> paragraphs -> tokens -> sentences, every character kept;
- training: the lexicon learned from a treebank; model: the model file, training, loading;
- conllu_blocks: sentences as CoNLL-U blocks (and the text back from them);
- reading: read_raw, the handoff point: raw or tokenized text -> CoNLL-U Sentence objects;
- scoring: the scores of a tokenizer from raw text (what `polyparse tokenize tokenize` runs is
  a pipeline: parser/pipeline/).
"""
