"""Raw text -> sentences, tokens and words for any language, each learned from one UD treebank
(the first layer of parsing from raw text, as UDPipe 1's tokenizer and multiword splitter).

    from polyparse.parser.segmentation.training import train_segmenter
    from polyparse.parser.segmentation.model import load_segmenter

    model = train_segmenter("xx-ud-train.conllu", "xx-ud-dev.conllu")
    model.save("xx.segmenter")
    for sentence in load_segmenter("xx.segmenter").segment(text):
        sentence.tokens, sentence.spaces, sentence.words

- characters: each character's value, class (Unicode category and script) and flags;
- text_units (Cython): a text as units (characters and gaps), its chunks and regions;
- boundary_templates (Cython): the keys of the three decisions (inner boundary, gap, sentence);
- boundary_decoder (Cython): greedy decoding, training rows, linear weights;
- multiword, multiword_context: the words of each token (table, suffix rules, context);
- treebank_data: a treebank as one text with its tokens, sentences and words;
- linear_fit, training: learning the classifiers; model: the model file; segmenter: the run;
- sentences: what the segmenter gives (SegmentedSentence, detokenize); scoring: the CoNLL 2018
  Tokens, Sentences and Words F1 from raw text.
"""
