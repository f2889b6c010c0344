"""Stage 1 of the flow, text: line index, positions in every encoding, edits applied to bytes."""
