"""Text into sentences of tokens and words, and back: what raw-text reading and the learned
segmenter (parser/segmentation/, which cuts the text of any language) share, and MeCab for
Japanese.

- treebank_text: a treebank's sentences, tokens and raw text (conllu_to_text.pl's);
- segmenter: the sentences a segmenter gives (TokenizedSentence, detokenize), what separates
  tokens, and what a tokenizer model offers reading (Protocols);
- model: loading a tokenizer model (a learned segmenter's file, or a pipeline file's layer);
- conllu_blocks: sentences as CoNLL-U blocks (and the text back from them);
- reading: read_raw, the handoff point: raw or tokenized text -> CoNLL-U Sentence objects
  (what `polyparse tokenize tokenize` runs is a pipeline: parser/pipeline/);
- block_cuts: a block of raw text cut where a parser found sentence ends inside it;
- mecab, japanese_text: Japanese raw text to morphemes (the tokenize stage of Japanese).
"""
