;;; tokenizer-lsp.el --- Eglot setup for tokenizer-lsp  -*- lexical-binding: t; -*-

;; Emacs 29+ (eglot is built in; tested with Emacs 30.1).  Put this file on your
;; `load-path' and `(require 'tokenizer-lsp)', or paste its body into your init file.
;;
;; What it does:
;; - `tokenizer-json-mode' (a `js-json-mode') for tokenizer.json, vocab.json,
;;   encoder.json and *.tokenizer.json, so other JSON files keep their own server;
;; - `tokenizer-tiktoken-mode' for *.tiktoken and `tokenizer-merges-mode' for
;;   merges.txt and vocab.bpe;
;; - one `eglot-server-programs' entry for the three modes, with the LSP language ids
;;   the server expects ("json", "tiktoken", "bpe-merges");
;; - `eglot-ensure' in those modes.  Eglot turns inlay hints on by itself
;;   (`eglot-inlay-hints-mode'); hovers show in the echo area (eldoc) and in
;;   `M-x eldoc-doc-buffer'; diagnostics go to Flymake (`M-x flymake-show-buffer-diagnostics').
;;
;; The server only claims tokenizer files (it looks at the content), so you may also
;; add `js-json-mode' / `json-ts-mode' to the entry to run it on every JSON file --
;; at the cost of whatever JSON server eglot would otherwise use there.

;;; Code:

(require 'eglot)

(defgroup tokenizer-lsp nil
  "LLM tokenizer files through the tokenizer-lsp language server."
  :group 'eglot)

(defcustom tokenizer-lsp-command '("tokenizer-lsp")
  "Command that starts the server on stdio.
For example (\"python3\" \"-m\" \"tokenizer_lsp\") or
(\"/path/to/venv/bin/tokenizer-lsp\")."
  :type '(repeat string))

(defcustom tokenizer-lsp-initialization-options
  '(:inlayHints (:mode "all")
    :diagnostics (:severity (:utf8-fragment "hint")))
  "Settings sent as LSP initializationOptions (the `tokenizerLsp' section).
inlayHints.mode: \"all\", \"whitespace\" or \"off\".
diagnostics.severity: per code, \"error\", \"warning\", \"information\",
\"hint\" or \"off\"; also diagnostics.maxPerFile and diagnostics.debounceMs.
Later changes can go through `eglot-workspace-configuration' under
:tokenizerLsp."
  :type 'sexp)

(define-derived-mode tokenizer-json-mode js-json-mode "Tokenizer-JSON"
  "Major mode for tokenizer.json and GPT-2 vocab.json / encoder.json files.")

(define-derived-mode tokenizer-tiktoken-mode text-mode "Tiktoken"
  "Major mode for tiktoken rank files: one `base64 rank' per line.")

(define-derived-mode tokenizer-merges-mode text-mode "BPE-Merges"
  "Major mode for BPE merges files (merges.txt, vocab.bpe)."
  (setq-local comment-start "#"))

(dolist (entry '(("/\\(?:[^/]*\\.\\)?tokenizer\\.json\\'" . tokenizer-json-mode)
                 ("/\\(?:vocab\\|encoder\\)\\.json\\'" . tokenizer-json-mode)
                 ("\\.tiktoken\\'" . tokenizer-tiktoken-mode)
                 ("/\\(?:merges\\.txt\\|vocab\\.bpe\\)\\'" . tokenizer-merges-mode)))
  (add-to-list 'auto-mode-alist entry))

(defun tokenizer-lsp--contact (&optional _interactive _project)
  "The eglot contact: `tokenizer-lsp-command' plus initializationOptions."
  (append tokenizer-lsp-command
          (list :initializationOptions tokenizer-lsp-initialization-options)))

(add-to-list 'eglot-server-programs
             '(((tokenizer-json-mode :language-id "json")
                (tokenizer-tiktoken-mode :language-id "tiktoken")
                (tokenizer-merges-mode :language-id "bpe-merges"))
               . tokenizer-lsp--contact))

(dolist (hook '(tokenizer-json-mode-hook tokenizer-tiktoken-mode-hook tokenizer-merges-mode-hook))
  (add-hook hook #'eglot-ensure))

(provide 'tokenizer-lsp)
;;; tokenizer-lsp.el ends here
