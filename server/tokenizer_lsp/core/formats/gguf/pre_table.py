"""llama.cpp's pre-tokenizers: `tokenizer.ggml.pre` name -> pre type, and each type's split
regexes (applied one after another, each splitting the pieces the previous one left).

GENERATED from llama.cpp's src/llama-vocab.cpp (llama-cpp-python 0.3.36's vendored copy:
llm_tokenizer_bpe's constructor and llama_vocab::impl::load's table of names) by reading its
C string literals; not edited by hand, so it says what llama.cpp says. The regexes are
llama.cpp's "adapted" forms (case-insensitive groups spelled out), which is what it runs.
"""

# type -> {"regexes": [...], "byte_encode": bool (False: raw UTF-8, not the GPT-2 byte map)}
TYPES = {
    'AFMOE': {
        "byte_encode": True,
        "regexes": [
            '\\p{AFMoE_digits}',
            '[一-鿿㐀-䶿豈-\ufaff\u3040-ゟ゠-ヿ･-ﾟ⼀-\u2fdfเ-\u0e7f\u0e80-\u0effក-\u17ffက-႟ꩠ-ꩿꧠ-\ua9ff가-\ud7afᄀ-ᇿ]+',
            '[!"#$%&\'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\\r\\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+',
        ],
    },
    'BAILINGMOE': {
        "byte_encode": True,
        "regexes": [
            "'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+",
        ],
    },
    'BLOOM': {
        "byte_encode": True,
        "regexes": [
            ' ?[^(\\s|.,!?…。，、।۔،)]+',
        ],
    },
    'CHAMELEON': {
        "byte_encode": True,
        "regexes": [
            '<sentinel:[0-9]+>',
            '(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z',
            '([\\t\\n]|    |  )',
            '\\p{N}',
            '[\\p{P}!-/:-@\\[-`{-~]',
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        ],
    },
    'CHATGLM4': {
        "byte_encode": True,
        "regexes": [
            "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        ],
    },
    'CODESHELL': {
        "byte_encode": True,
        "regexes": [
            '\\p{N}',
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        ],
    },
    'COMMAND_R': {
        "byte_encode": True,
        "regexes": [
            '\\p{N}',
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        ],
    },
    'DBRX': {
        "byte_encode": True,
        "regexes": [
            "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        ],
    },
    'DEEPSEEK3_LLM': {
        "byte_encode": True,
        "regexes": [
            '\\p{N}{1,3}',
            '[一-龥\u3040-ゟ゠-ヿ]+',
            '[!"#$%&\'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+',
        ],
    },
    'DEEPSEEK_CODER': {
        "byte_encode": True,
        "regexes": [
            '[\r\n]',
            '\\s?\\p{L}+',
            '\\s?\\p{P}+',
            '[一-龥ࠀ-一가-\ud7ff]+',
            '\\p{N}',
        ],
    },
    'DEEPSEEK_LLM': {
        "byte_encode": True,
        "regexes": [
            '[\r\n]',
            '\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+',
            '\\s?[!-/:-~！-／：-～‘-‟\u3000-。]+',
            '\\s+$',
            '[一-龥ࠀ-一가-\ud7ff]+',
            '\\p{N}+',
        ],
    },
    'DEFAULT': {
        "byte_encode": True,
        "regexes": [
            '[\\p{P}\\$\\+<=>\\^~\\|]+',
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
            '\\p{N}+',
            '[0-9][0-9][0-9]',
        ],
    },
    'EXAONE': {
        "byte_encode": True,
        "regexes": [
            '\\p{N}',
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        ],
    },
    'EXAONE_MOE': {
        "byte_encode": True,
        "regexes": [
            "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?(?:\\p{L}\\p{M}*(?: \\p{L}\\p{M}*)*)+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]?|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+",
        ],
    },
    'FALCON': {
        "byte_encode": True,
        "regexes": [
            '[\\p{P}\\$\\+<=>\\^~\\|`]+',
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
            '[0-9][0-9][0-9]',
        ],
    },
    'GEMMA4': {
        "byte_encode": False,
        "regexes": [
            '[^\\n]+|[\\n]+',
        ],
    },
    'GPT2': {
        "byte_encode": True,
        "regexes": [
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        ],
    },
    'GPT3_FINNISH': {
        "byte_encode": True,
        "regexes": [
            ' ?[^(\\s|.,!?…。，、।۔،)]+',
        ],
    },
    'GPT4O': {
        "byte_encode": True,
        "regexes": [
            "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        ],
    },
    'GRANITE_DOCLING': {
        "byte_encode": True,
        "regexes": [
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        ],
    },
    'GRANITE_EMB_MULTI': {
        "byte_encode": True,
        "regexes": [
            "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}\\p{M}])([^a-z]))*((?=[\\p{L}\\p{M}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}\\p{M}])([^a-z]))+((?=[\\p{L}\\p{M}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        ],
    },
    'GROK_2': {
        "byte_encode": True,
        "regexes": [
            "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        ],
    },
    'HUNYUAN': {
        "byte_encode": True,
        "regexes": [
            "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        ],
    },
    'HUNYUAN_DENSE': {
        "byte_encode": True,
        "regexes": [
            '\\p{N}{1,3}',
            '[一-龥\u3040-ゟ゠-ヿ]+',
            '[!"#$%&\'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+',
        ],
    },
    'HY_V4': {
        "byte_encode": True,
        "regexes": [
            '\\p{N}{1,3}',
            '[一-龥\u3040-ゟ゠-ヿ]+',
            '[!"#$%&\'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+',
        ],
    },
    'JAIS': {
        "byte_encode": True,
        "regexes": [
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        ],
    },
    'JAIS2': {
        "byte_encode": True,
        "regexes": [
            "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s{512}(?!\\S)|\\s{256}(?!\\S)|\\s{128}(?!\\S)|\\s{64}(?!\\S)|\\s{32}(?!\\S)|\\s{16}(?!\\S)|\\s{8}(?!\\S)|\\s{4}(?!\\S)|\\s{1,2}(?!\\S)|\\s{1}",
        ],
    },
    'JOYAI_LLM': {
        "byte_encode": True,
        "regexes": [
            '\\p{N}{1,3}',
            '[一-龥\u3040-ゟ゠-ヿ]+',
            '[!"#$%&\'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+',
        ],
    },
    'KIMI_K2': {
        "byte_encode": True,
        "regexes": [
            '\\p{Han}+',
        ],
    },
    'LAGUNA': {
        "byte_encode": True,
        "regexes": [
            '[^\\n]+|[\\n]+',
            "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        ],
    },
    'LLAMA3': {
        "byte_encode": True,
        "regexes": [
            "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        ],
    },
    'MELLUM2': {
        "byte_encode": True,
        "regexes": [
            '\\p{N}',
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        ],
    },
    'MINERVA': {
        "byte_encode": True,
        "regexes": [
            '\\p{N}',
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        ],
    },
    'MINICPM5': {
        "byte_encode": True,
        "regexes": [
            '\\p{N}{1,3}',
            "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}+| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        ],
    },
    'MINIMAX_M2': {
        "byte_encode": True,
        "regexes": [
            "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        ],
    },
    'MPT': {
        "byte_encode": True,
        "regexes": [
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        ],
    },
    'OLMO': {
        "byte_encode": True,
        "regexes": [
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        ],
    },
    'PORO': {
        "byte_encode": True,
        "regexes": [
            ' ?[^(\\s|.,!?…。，、।۔،)]+',
        ],
    },
    'QWEN2': {
        "byte_encode": True,
        "regexes": [
            "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        ],
    },
    'QWEN35': {
        "byte_encode": True,
        "regexes": [
            "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        ],
    },
    'REFACT': {
        "byte_encode": True,
        "regexes": [
            '\\p{N}',
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        ],
    },
    'SARVAM_MOE': {
        "byte_encode": False,
        "regexes": [
            '[^\\n]+|[\\n]+',
        ],
    },
    'SEED_CODER': {
        "byte_encode": True,
        "regexes": [
            "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1}| ?[^\\s\\p{L}\\p{N}\\r\\n]+|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        ],
    },
    'SMAUG': {
        "byte_encode": True,
        "regexes": [
            "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        ],
    },
    'SMOLLM': {
        "byte_encode": True,
        "regexes": [
            '\\p{N}',
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        ],
    },
    'SOLAR_OPEN': {
        "byte_encode": True,
        "regexes": [
            "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        ],
    },
    'SPARK2_5': {
        "byte_encode": True,
        "regexes": [
            '\\p{N}{1,3}',
            '[一-龥\u3040-ゟ゠-ヿ]+',
            '[!"#$%&\'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+|[\r\n]|\\s+(?!\\S)|\\s+',
            '\\p{N}',
        ],
    },
    'STABLELM2': {
        "byte_encode": True,
        "regexes": [
            "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        ],
    },
    'STARCODER': {
        "byte_encode": True,
        "regexes": [
            '\\p{N}',
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        ],
    },
    'SUPERBPE': {
        "byte_encode": True,
        "regexes": [
            '\\p{N}+',
            '(?=(\\d{3})+(?!\\d))',
        ],
    },
    'TEKKEN': {
        "byte_encode": True,
        "regexes": [
            '[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+',
        ],
    },
    'TINY_AYA': {
        "byte_encode": True,
        "regexes": [
            '\\d{1,3}(?=(?:\\d{3})*\\b)',
            "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        ],
    },
    'TRILLION': {
        "byte_encode": True,
        "regexes": [
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        ],
    },
    'UFAKZEKA': {
        "byte_encode": True,
        "regexes": [
            '[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+',
        ],
    },
    'VIKING': {
        "byte_encode": True,
        "regexes": [
            ' ?[^(\\s|.,!?…。，、।۔،)]+',
            '\\p{N}',
        ],
    },
    'WHITESPACE': {
        "byte_encode": False,
        "regexes": [
            '\\S+',
        ],
    },
    'YOUTU': {
        "byte_encode": True,
        "regexes": [
            '[가-힣ㄱ-ㆎ]+|[！…“”‘’—：；，、-〿︰-﹏]+|[ㄅ-ㄯ]+|[一-龥\u3040-ゟ゠-ヿ]+',
            "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        ],
    },
}

# name -> (type, ignore_merges, add_bos, escape_whitespaces) as llama.cpp sets them
NAMES = {
    'a.x-4.0': ('GPT2', False, False, False),
    'afmoe': ('AFMOE', False, False, False),
    'bailingmoe': ('BAILINGMOE', False, False, False),
    'bailingmoe2': ('BAILINGMOE', False, False, False),
    'bloom': ('BLOOM', False, False, False),
    'chameleon': ('CHAMELEON', False, True, False),
    'chatglm-bpe': ('CHATGLM4', False, False, False),
    'codeshell': ('CODESHELL', False, False, False),
    'cohere2moe': ('TINY_AYA', False, False, False),
    'command-r': ('COMMAND_R', False, False, False),
    'dbrx': ('DBRX', False, False, False),
    'deepseek-coder': ('DEEPSEEK_CODER', False, False, False),
    'deepseek-llm': ('DEEPSEEK_LLM', False, False, False),
    'deepseek-r1-qwen': ('QWEN2', False, False, False),
    'deepseek-v3': ('DEEPSEEK3_LLM', False, False, False),
    'default': ('DEFAULT', False, False, False),
    'exaone': ('EXAONE', False, False, False),
    'exaone-moe': ('EXAONE_MOE', False, False, False),
    'exaone4': ('GPT2', False, False, False),
    'f2llmv2': ('QWEN2', False, False, False),
    'falcon': ('FALCON', False, False, False),
    'falcon-h1': ('LLAMA3', True, True, False),
    'falcon3': ('LLAMA3', True, True, False),
    'gemma4': ('GEMMA4', False, False, True),
    'gigachat': ('GPT2', False, False, False),
    'glm4': ('CHATGLM4', True, False, False),
    'glm5': ('CHATGLM4', True, False, False),
    'gpt-2': ('GPT2', False, False, False),
    'gpt-4o': ('GPT4O', False, False, False),
    'gpt3-finnish': ('GPT3_FINNISH', False, False, False),
    'granite-docling': ('GRANITE_DOCLING', False, False, False),
    'granite-embed-multi-311m': ('GEMMA4', False, False, True),
    'granite-embed-multi-97m': ('GRANITE_EMB_MULTI', True, False, False),
    'grok-2': ('GROK_2', False, False, False),
    'hunyuan': ('HUNYUAN', False, False, False),
    'hunyuan-dense': ('HUNYUAN_DENSE', False, False, False),
    'hy_v4': ('HY_V4', False, False, False),
    'jais': ('JAIS', False, False, False),
    'jais-2': ('JAIS2', False, False, False),
    'jina-de': ('GPT2', False, False, False),
    'jina-es': ('GPT2', False, False, False),
    'jina-v1-en': ('GPT2', False, False, False),
    'jina-v2-code': ('GPT2', False, False, False),
    'jina-v2-de': ('GPT2', False, False, False),
    'jina-v2-es': ('GPT2', False, False, False),
    'jina-v5-nano': ('LLAMA3', True, True, False),
    'joyai-llm': ('JOYAI_LLM', False, False, False),
    'kanana2': ('GPT4O', False, False, False),
    'kimi-k2': ('KIMI_K2', False, False, False),
    'kormo': ('QWEN2', False, False, False),
    'laguna': ('LAGUNA', False, False, False),
    'lfm2': ('LLAMA3', True, True, False),
    'llada-moe': ('BAILINGMOE', False, False, False),
    'llama-bpe': ('LLAMA3', True, True, False),
    'llama-v3': ('LLAMA3', True, True, False),
    'llama3': ('LLAMA3', True, True, False),
    'llama4': ('GPT4O', False, False, False),
    'megrez': ('QWEN2', False, False, False),
    'mellum': ('GPT2', False, False, False),
    'mellum2': ('MELLUM2', False, False, False),
    'midm-2.0': ('LLAMA3', True, True, False),
    'minerva-7b': ('MINERVA', False, False, False),
    'minicpm5': ('MINICPM5', True, False, False),
    'minimax-m2': ('MINIMAX_M2', False, False, False),
    'modern-bert': ('GPT2', False, False, False),
    'mpt': ('MPT', False, False, False),
    'olmo': ('OLMO', False, False, False),
    'phi-2': ('GPT2', False, False, False),
    'pixtral': ('LLAMA3', True, True, False),
    'poro-chat': ('PORO', False, False, False),
    'qwen2': ('QWEN2', False, False, False),
    'qwen35': ('QWEN35', False, False, False),
    'refact': ('REFACT', False, False, False),
    'roberta-bpe': ('GPT2', False, False, False),
    'sarvam-moe': ('SARVAM_MOE', False, False, True),
    'seed-coder': ('SEED_CODER', False, False, False),
    'smaug-bpe': ('SMAUG', False, False, False),
    'smollm': ('SMOLLM', False, False, False),
    'solar-open': ('SOLAR_OPEN', False, False, False),
    'spark2_5': ('SPARK2_5', False, False, False),
    'stablelm2': ('STABLELM2', False, False, False),
    'starcoder': ('STARCODER', False, False, False),
    'superbpe': ('SUPERBPE', False, False, False),
    'talkie': ('GPT4O', False, False, False),
    'tekken': ('TEKKEN', True, True, False),
    'tiny_aya': ('TINY_AYA', False, False, False),
    'trillion': ('TRILLION', False, False, False),
    'ufakzeka': ('UFAKZEKA', False, False, False),
    'viking': ('VIKING', False, False, False),
    'whitespace': ('WHITESPACE', False, False, False),
    'youtu': ('YOUTU', True, False, False),
}
