"""`tokenizer-lsp playground`: a local web page that shows how tokenizers split a text and
what a chat template makes of a conversation (docs/playground.md).

engines.py loads each PATH once into its engine; api.py answers the API; server.py is the
HTTP server and its safety rules; static/ holds the page (built from client-playground/ by
esbuild, shipped as package data).
"""
