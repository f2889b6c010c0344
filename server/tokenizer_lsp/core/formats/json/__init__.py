"""tokenizer.json and vocab.json: orjson values, source positions without a full scan, salvage of
broken JSON, the typing fast path.
"""
