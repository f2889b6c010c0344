;;; tokenizer-lsp.el --- Eglot setup for tokenizer-lsp  -*- lexical-binding: t; -*-

;; Emacs 29+ (eglot is built in; tested with Emacs 30.1).  Put this file on your
;; `load-path' and `(require 'tokenizer-lsp)', or paste its body into your init file.
;;
;; What it does:
;; - `tokenizer-json-mode' (a `js-json-mode') for tokenizer.json, vocab.json,
;;   encoder.json and *.tokenizer.json, so other JSON files keep their own server;
;; - `tokenizer-json-mode' also for Mistral's tekken*.json, and for a model folder's
;;   tokenizer_config.json, special_tokens_map.json, generation_config.json,
;;   added_tokens.json and config.json when a tokenizer stands beside it (else the
;;   usual JSON mode): the server checks them against it, the chat_template string too;
;; - `tokenizer-tiktoken-mode' for *.tiktoken, `tokenizer-merges-mode' for
;;   merges.txt and vocab.bpe, `tokenizer-wordpiece-mode' for a WordPiece vocab.txt;
;; - binary tokenizer files (SentencePiece *.model / *.model.vN, GGUF *.gguf) open as
;;   their decoded view in `tokenizer-decoded-mode': Emacs never reads the file (a file
;;   name handler takes over the read, so a GGUF of gigabytes costs nothing); the server
;;   reads it and the buffer shows the text of its command
;;   tokenizer-lsp.decodedVocabulary, one row per token, read-only and never saved, with
;;   eglot managing it (hover on a row, the file's findings on its rows).
;;   `M-x tokenizer-lsp-decoded-vocabulary' shows it again, or for a text tokenizer file
;;   the same listing in a *tokenizer-lsp decoded: NAME* buffer.  Set
;;   `tokenizer-lsp-decoded-views' to nil (before visiting) to get the bytes instead;
;; - `tokenizer-chat-template-mode' for a model folder's chat templates,
;;   chat_template.jinja and additional_chat_templates/*.jinja (Emacs has no Jinja mode
;;   of its own; this one only colours the tags and the special-token literals).  Beside
;;   a tokenizer the server checks them: Flymake shows chat-template-syntax,
;;   chat-template-token and the other template findings, eldoc the id of a literal such
;;   as <|im_start|> or of a variable such as eos_token, `eglot-code-actions' moves the
;;   template into tokenizer_config.json and back.  Other .jinja files keep their mode;
;; - one `eglot-server-programs' entry for these modes, with the LSP language ids
;;   the server expects ("json", "tiktoken", "bpe-merges", "jinja"; "plaintext" for
;;   vocab.txt, which the server knows by its name, and for a view, known by its first line);
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

(define-derived-mode tokenizer-wordpiece-mode text-mode "WordPiece"
  "Major mode for a WordPiece vocab.txt.
One token per line, its id the line (0-based).")

(defconst tokenizer-chat-template-font-lock-keywords
  '(("{#.*?#}" . font-lock-comment-face)
    ("\\({%-?\\|{{-?\\|-?%}\\|-?}}\\)" 1 font-lock-preprocessor-face)
    ("{%-?[ \t\n]*\\([a-z_]+\\)" 1 font-lock-keyword-face)
    ;; special-token literals: <|im_start|>, DeepSeek's full-width <｜User｜>, <start_of_turn>
    ("<\\(?:|[^|\n]*|\\|｜[^｜\n]*｜\\|[a-z]+_[a-z_]+\\)>" . font-lock-constant-face))
  "Jinja tags and special-token literals, and nothing else.
No strings: a template's text is prose, where an apostrophe opens no string.")

(define-derived-mode tokenizer-chat-template-mode prog-mode "Chat-Template"
  "Major mode for a model folder's chat template (chat_template.jinja and
additional_chat_templates/*.jinja), checked by tokenizer-lsp against the
tokenizer beside it."
  (setq-local comment-start "{# "
              comment-end " #}"
              comment-start-skip "{#-?[ \t]*"
              font-lock-defaults '(tokenizer-chat-template-font-lock-keywords t)))

(dolist (entry '(("/\\(?:[^/]*\\.\\)?tokenizer\\.json\\'" . tokenizer-json-mode)
                 ("/\\(?:vocab\\|encoder\\)\\.json\\'" . tokenizer-json-mode)
                 ("/[^/]*tekken[^/]*\\.json\\'" . tokenizer-json-mode)
                 ("\\.tiktoken\\'" . tokenizer-tiktoken-mode)
                 ("/\\(?:merges\\.txt\\|vocab\\.bpe\\)\\'" . tokenizer-merges-mode)
                 ("/vocab\\.txt\\'" . tokenizer-wordpiece-mode)
                 ("/chat_template\\.jinja\\'" . tokenizer-chat-template-mode)
                 ("/additional_chat_templates/[^/]*\\.jinja\\'" . tokenizer-chat-template-mode)))
  (add-to-list 'auto-mode-alist entry))

;; A model folder's config files (the server's detect_rules.json modelConfigNames): served
;; when a tokenizer (modelTokenizerNames) stands in the same folder, as VS Code does
(defconst tokenizer-lsp--tokenizer-names
  '("tokenizer.json" "vocab.json" "encoder.json" "tokenizer.model" "spiece.model"
    "sentencepiece.bpe.model" "vocab.txt"))

(defun tokenizer-lsp--tokenizer-beside-p (file)
  (and file (let ((dir (file-name-directory file)))
              (seq-some (lambda (name) (file-exists-p (expand-file-name name dir)))
                        tokenizer-lsp--tokenizer-names))))

(defun tokenizer-lsp-model-config-mode ()
  "`tokenizer-json-mode' for a model folder's config file beside a tokenizer.
Elsewhere the mode Emacs gives JSON (`js-json-mode', or what
`major-mode-remap-alist' makes of it)."
  (if (tokenizer-lsp--tokenizer-beside-p buffer-file-name)
      (tokenizer-json-mode)
    (funcall (if (fboundp 'major-mode-remap) (major-mode-remap 'js-json-mode) 'js-json-mode))))

(add-to-list 'auto-mode-alist
             '("/\\(?:tokenizer_config\\|special_tokens_map\\|generation_config\\|added_tokens\\|config\\)\\.json\\'"
               . tokenizer-lsp-model-config-mode))

(defun tokenizer-lsp--contact (&optional _interactive _project)
  "The eglot contact: `tokenizer-lsp-command' plus initializationOptions."
  (append tokenizer-lsp-command
          (list :initializationOptions tokenizer-lsp-initialization-options)))

(add-to-list 'eglot-server-programs
             '(((tokenizer-json-mode :language-id "json")
                (tokenizer-tiktoken-mode :language-id "tiktoken")
                (tokenizer-merges-mode :language-id "bpe-merges")
                (tokenizer-wordpiece-mode :language-id "plaintext")
                (tokenizer-chat-template-mode :language-id "jinja")
                (tokenizer-decoded-mode :language-id "plaintext"))
               . tokenizer-lsp--contact))

(dolist (hook '(tokenizer-json-mode-hook tokenizer-tiktoken-mode-hook tokenizer-merges-mode-hook
                tokenizer-wordpiece-mode-hook tokenizer-chat-template-mode-hook tokenizer-decoded-mode-hook))
  (add-hook hook #'eglot-ensure))

;;;; Binary tokenizer files: the decoded view

(defcustom tokenizer-lsp-decoded-views t
  "Non-nil: visiting a binary tokenizer file shows its decoded view.
The file is never read by Emacs: the server reads it (a GGUF by its metadata
alone).  Nil: the file is visited as usual (its bytes)."
  :type 'boolean)

(defconst tokenizer-lsp--binary-regexp "\\.\\(?:model\\(?:\\.v[0-9]+\\)?\\|gguf\\)\\'"
  "Binary tokenizer files: SentencePiece *.model / *.model.vN, GGUF *.gguf.")

(defconst tokenizer-lsp--command "tokenizer-lsp.decodedVocabulary")

(define-derived-mode tokenizer-decoded-mode special-mode "Tokenizer-Decoded"
  "Read-only decoded view of a binary tokenizer file: one row per token.
The text is what the server's command tokenizer-lsp.decodedVocabulary gives
for the file; the server knows a view by its first line and answers hovers on
its rows and puts the file's findings on them."
  (setq-local create-lockfiles nil
              make-backup-files nil
              buffer-undo-list t
              truncate-lines t
              revert-buffer-function #'tokenizer-lsp--revert-view)
  (auto-save-mode -1)
  (add-hook 'write-contents-functions #'tokenizer-lsp--refuse-write nil t)
  (add-hook 'eglot-managed-mode-hook #'tokenizer-lsp--fill-when-managed nil t))

(defun tokenizer-lsp--refuse-write ()
  (user-error "%s is shown decoded (read-only): nothing is written" (buffer-name)))

(defun tokenizer-lsp--binary-handler (operation &rest args)
  "File name handler of binary tokenizer files: visiting one reads nothing.
Every other operation, and reading without visiting, is done as usual."
  (if (and (eq operation 'insert-file-contents) (nth 1 args) tokenizer-lsp-decoded-views)
      (let ((file (expand-file-name (car args))))
        (setq buffer-file-name file)
        (set-visited-file-modtime)
        (set-buffer-modified-p nil)
        (list file 0))
    (let ((inhibit-file-name-handlers
           (cons #'tokenizer-lsp--binary-handler
                 (and (eq inhibit-file-name-operation operation) inhibit-file-name-handlers)))
          (inhibit-file-name-operation operation))
      (apply operation args))))

(add-to-list 'file-name-handler-alist (cons tokenizer-lsp--binary-regexp #'tokenizer-lsp--binary-handler))
(add-to-list 'auto-mode-alist (cons tokenizer-lsp--binary-regexp 'tokenizer-decoded-mode))

(defun tokenizer-lsp--skip-size-question (orig size op-type filename &rest rest)
  "No \"file is large, really open?\" for a binary file shown decoded.
It is not read: ORIG (with SIZE, OP-TYPE, FILENAME and REST) is only asked
about other files."
  (unless (and tokenizer-lsp-decoded-views (equal op-type "open") filename
               (string-match-p tokenizer-lsp--binary-regexp filename))
    (apply orig size op-type filename rest)))
(advice-add 'abort-if-file-too-large :around #'tokenizer-lsp--skip-size-question)

(defun tokenizer-lsp--decoded-text (server file)
  "SERVER's decoded view (for a text file: listing) of FILE, a plist (:text :rows)."
  (jsonrpc-request server :workspace/executeCommand
                   (list :command tokenizer-lsp--command
                         :arguments (vector (eglot-path-to-uri (expand-file-name file))))))

(defun tokenizer-lsp--show (text)
  "Make the buffer's text TEXT (read-only, unmodified)."
  (let ((inhibit-read-only t)
        (pos (point)))
    (erase-buffer)
    (insert text)
    (goto-char (min pos (point-max)))
    (set-buffer-modified-p nil)))

(defun tokenizer-lsp--fill-view ()
  "Put the decoded view of the visited binary file in this buffer.
eglot sends the new text to the server (didChange), which then serves its rows."
  (let ((server (eglot-current-server)))
    (unless server (user-error "No tokenizer-lsp server for %s" (buffer-name)))
    (tokenizer-lsp--show (format "# tokenizer-lsp: decoding %s…\n" (file-name-nondirectory buffer-file-name)))
    (condition-case err
        (tokenizer-lsp--show (plist-get (tokenizer-lsp--decoded-text server buffer-file-name) :text))
      (jsonrpc-error
       (let ((msg (or (alist-get 'jsonrpc-error-message (cddr err)) (format "%S" err))))
         (tokenizer-lsp--show (format "# tokenizer-lsp: %s: %s\n" (file-name-nondirectory buffer-file-name) msg))
         (message "tokenizer-lsp: %s" msg))))
    ;; The view to the server now, not when Emacs is next idle: hovers wait for it.
    (when (and eglot--managed-mode (fboundp 'eglot--signal-textDocument/didChange))
      (eglot--signal-textDocument/didChange))))

(defun tokenizer-lsp--fill-when-managed ()
  ;; From a timer: eglot may turn its mode on from the server's answer to `initialize'
  ;; (a process filter), where a request of ours could not be answered.
  (when (and eglot--managed-mode (derived-mode-p 'tokenizer-decoded-mode) (= (buffer-size) 0))
    (run-at-time 0 nil (lambda (buf)
                         (when (buffer-live-p buf)
                           (with-current-buffer buf
                             (when (= (buffer-size) 0) (tokenizer-lsp--fill-view)))))
                 (current-buffer))))

(defun tokenizer-lsp--revert-view (&rest _)
  (tokenizer-lsp--fill-view))

;;;###autoload
(defun tokenizer-lsp-decoded-vocabulary (&optional file)
  "Show the decoded vocabulary of FILE (default: this buffer's file).
A binary tokenizer file (.model, .gguf) is visited as its decoded view (this
buffer is filled again when it is that view); for a text tokenizer file, its
listing (what `tokenizer-lsp decode' prints) goes to a read-only buffer.
With a prefix argument, ask for the file."
  (interactive (list (if current-prefix-arg (read-file-name "Tokenizer file: ") buffer-file-name)))
  (unless file (user-error "This buffer visits no file"))
  (setq file (expand-file-name file))
  (cond
   ((and (string-match-p tokenizer-lsp--binary-regexp file) (equal buffer-file-name file)
         (derived-mode-p 'tokenizer-decoded-mode))
    (tokenizer-lsp--fill-view))
   ((string-match-p tokenizer-lsp--binary-regexp file)
    (find-file file))
   (t
    (let* ((server (or (eglot-current-server) (user-error "No tokenizer-lsp server for this buffer")))
           (text (plist-get (tokenizer-lsp--decoded-text server file) :text))
           (buf (get-buffer-create (format "*tokenizer-lsp decoded: %s*" (file-name-nondirectory file)))))
      (with-current-buffer buf
        (special-mode)
        (setq-local truncate-lines t)
        (tokenizer-lsp--show text)
        (goto-char (point-min)))
      (pop-to-buffer buf)))))

(provide 'tokenizer-lsp)
;;; tokenizer-lsp.el ends here
