"""The model folder: the config files beside a tokenizer (tokenizer_config.json,
special_tokens_map.json, generation_config.json, config.json, added_tokens.json) checked
against it, and what their token strings and ids name.

config_doc parses one file with the spans of its token and id literals; checks holds it
against a tokenizer's TokenizerFacts (facts); folder reads the files of a folder; config_queries
answers what a literal names and where a token is named.
"""

from .config_doc import CONFIG_NAMES, ConfigDocument, ConfigItem, is_config_name

__all__ = ["CONFIG_NAMES", "ConfigDocument", "ConfigItem", "is_config_name"]
