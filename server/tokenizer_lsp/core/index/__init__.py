"""Stage 6, index: one version of a text made a DocumentIndex (format, parse, findings at once),
never rewritten after its build.
"""
