"""Chat templates: found as transformers finds them, rendered in its sandbox, checked on the
standard chats.
"""
