"""Stage 7, navigation: what a literal under the cursor is, definition, references, merge trees,
outline.
"""
