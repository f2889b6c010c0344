;;; eglot-e2e.el --- Emacs + eglot end-to-end test of tokenizer-lsp  -*- lexical-binding: t; -*-

;; Run by scripts/emacs-e2e.sh; not meant to be loaded by hand.  It loads the shipped
;; configuration (editors/emacs/tokenizer-lsp.el), points it at the server under test,
;; opens a real tokenizer file and checks what eglot gets and shows.
;;
;; Two entry points:
;;   emacs -Q --batch -l eglot-e2e.el -f tokenizer-e2e-batch
;;       connect through the config's major mode + `eglot-ensure', hover through eldoc,
;;       diagnostics through Flymake, inlay hints by request and painted by eglot's own
;;       painter, a hover on a merges file, and M-. (xref-find-definitions) on a merge
;;       part landing on its key in the vocabulary beside the merges file.  Prints one
;;       line per check.
;;   emacs -Q -nw -l eglot-e2e.el -f tokenizer-e2e-tty   (inside tmux)
;;       the real interactive path: jit-lock asks for the hints on redisplay; the shell
;;       reads the screen with `tmux capture-pane'.  Writes its own findings to
;;       $E2E_ARTIFACTS/tty-state.txt.
;;
;; Environment (set by the script):
;;   TOKENIZER_LSP_PYTHON  Python that can import tokenizer_lsp
;;   E2E_REPO              repository root (for editors/emacs)
;;   E2E_FILE              JSON vocabulary to open (GPT-2 encoder.json style or tokenizer.json)
;;   E2E_LITERAL           the token literal as written in the file, e.g. "\u0120the" (with quotes)
;;   E2E_TEXT              what the hover / hint must show for it, e.g. ␣the
;;   E2E_HEX               its bytes, e.g. 20 74 68 65
;;   E2E_FRAGMENTS         expected number of utf8-fragment diagnostics (optional)
;;   E2E_MERGES            a merges file beside a vocabulary (optional)
;;   E2E_MODEL, E2E_MODEL_FACTS   a SentencePiece .model and what its view must show (optional)
;;   E2E_GGUF, E2E_GGUF_FACTS     a .gguf and its tokens (optional)
;;   E2E_VOCAB_TXT, E2E_VOCAB_FACTS  a WordPiece vocab.txt, a token and its id (optional)
;;   (the facts: JSON from tests/editors/format_facts.py, each format's own library)
;;   E2E_CHAT_FACTS        chat templates: the model folders tests/editors/chat_facts.py built
;;                         and what each file must show (optional)
;;   E2E_ARTIFACTS         where logs go
;;   E2E_TIMEOUT           seconds to wait for each asynchronous answer (default 60)

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'ert)

;; no background native compilation of what gets loaded (it would spawn Emacs processes)
(when (boundp 'native-comp-jit-compilation) (setq native-comp-jit-compilation nil))

(defvar e2e-repo (or (getenv "E2E_REPO") default-directory))
(add-to-list 'load-path (expand-file-name "editors/emacs" e2e-repo))
(require 'tokenizer-lsp)

(defvar e2e-artifacts (file-name-as-directory
                       (or (getenv "E2E_ARTIFACTS") (expand-file-name "artifacts/emacs" e2e-repo))))
(make-directory e2e-artifacts t)
(defvar e2e-timeout (string-to-number (or (getenv "E2E_TIMEOUT") "60")))
(defvar e2e-passed 0)
(defvar e2e-failed 0)

;; The server under test, with utf8-fragment raised to warning so that the
;; initializationOptions are seen to reach it (the default is hint).
(setq tokenizer-lsp-command
      (list (or (getenv "TOKENIZER_LSP_PYTHON") "python3") "-m" "tokenizer_lsp"))
(setq tokenizer-lsp-initialization-options
      '(:inlayHints (:mode "all")
        :diagnostics (:severity (:utf8-fragment "warning"))))
(setq eglot-sync-connect t
      eglot-connect-timeout e2e-timeout
      eglot-autoshutdown nil
      eglot-events-buffer-config '(:size 4000000 :format full)
      ;; these files are often read-only (the corpus); nothing here edits them
      create-lockfiles nil
      inhibit-message nil)

;;;; helpers

(defun e2e--report (name ok detail)
  (if ok (cl-incf e2e-passed) (cl-incf e2e-failed))
  (princ (format "%s %s%s\n" (if ok "PASS" "FAIL") name
                 (if (and detail (not (string-empty-p detail))) (concat ": " detail) "")))
  ok)

(defmacro e2e-check (name &rest body)
  "Run BODY; it returns (OK . DETAIL).  Errors count as failures."
  (declare (indent 1))
  `(condition-case err
       (let ((r (progn ,@body)))
         (e2e--report ,name (car r) (cdr r)))
     (error (e2e--report ,name nil (format "error: %S" err)))))

(defun e2e--wait (pred &optional timeout)
  "Process events until PRED returns non-nil or TIMEOUT seconds pass; return its value."
  (let ((end (+ (float-time) (or timeout e2e-timeout))) v)
    (while (and (not (setq v (funcall pred))) (< (float-time) end))
      (accept-process-output nil 0.05))
    v))

(defun e2e--short (s &optional n)
  (let ((n (or n 300)) (s (replace-regexp-in-string "\n" "\\\\n" (format "%s" s))))
    (if (> (length s) n) (concat (substring s 0 n) "…") s)))

(defmacro e2e--write (file &rest body)
  "Write what BODY inserts to FILE in the artifacts folder, as UTF-8, without asking."
  (declare (indent 1))
  `(let ((coding-system-for-write 'utf-8-emacs-unix))
     (with-temp-file (expand-file-name ,file e2e-artifacts) ,@body)))

(defun e2e--save-buffer-text (buffer file &optional max-line)
  "Write BUFFER to FILE in the artifacts folder, cutting lines longer than MAX-LINE."
  (when (buffer-live-p buffer)
    (let ((text (with-current-buffer buffer
                  (buffer-substring-no-properties (point-min) (point-max))))
          (max-line (or max-line 4000)))
      (e2e--write file
        (dolist (line (split-string text "\n"))
          (insert (if (> (length line) max-line)
                      (format "%s… [%d more chars]" (substring line 0 max-line)
                              (- (length line) max-line))
                    line)
                  "\n"))))))

(defun e2e--save-logs ()
  (dolist (server (hash-table-values (or (bound-and-true-p eglot--servers-by-project)
                                         (make-hash-table))))
    (dolist (s server)
      (ignore-errors (e2e--save-buffer-text (jsonrpc-events-buffer s) "eglot-events.log"))
      (ignore-errors (e2e--save-buffer-text (jsonrpc-stderr-buffer s) "server-stderr.log"))))
  (e2e--save-buffer-text (get-buffer "*Messages*") "messages.log"))

(defun e2e--open (file)
  "Visit FILE through the config's auto-mode entry and connect the way a user does."
  (let ((buf (find-file-noselect file)))
    (switch-to-buffer buf)
    (with-current-buffer buf
      ;; `eglot-ensure' (from the mode hook) connects after the next command: run it.
      (run-hooks 'post-command-hook)
      (e2e--wait (lambda () (and (eglot-current-server) eglot--managed-mode)) e2e-timeout))
    buf))

(defun e2e--literal-bounds (literal)
  "Start and end of the first LITERAL used as a JSON key, or nil."
  (save-excursion
    (goto-char (point-min))
    (when (search-forward (concat literal ":") nil t)
      (let ((end (- (point) 1)))
        (cons (- end (length literal)) end)))))

(defun e2e--id-after (end)
  (save-excursion
    (goto-char end)
    (when (looking-at ":[ \t\n]*\\([0-9]+\\)") (match-string 1))))

(defvar e2e-empty-answers 0
  "Empty answers (null hover, [] hints) before the first real one, in the last retry loop.")

(defun e2e--hover-once (pos)
  (save-excursion
    (goto-char pos)
    (let (got done)
      (eglot-hover-eldoc-function (lambda (info &rest _) (setq got info done t)))
      (e2e--wait (lambda () done))
      (and got (substring-no-properties got)))))

(defun e2e--hover-at (pos)
  "Hover text at POS as eldoc gets it from eglot (nil when none).
The server answers null until its lookup tables are built (shortly after it publishes
the diagnostics), so a null answer is asked again, and counted in `e2e-empty-answers'."
  (setq e2e-empty-answers 0)
  (let ((end (+ (float-time) e2e-timeout)) got)
    (while (and (not (setq got (e2e--hover-once pos))) (< (float-time) end))
      (cl-incf e2e-empty-answers)
      (accept-process-output nil 0.1))
    got))

(defun e2e--retried ()
  (if (> e2e-empty-answers 0)
      (format " [after %d empty answer%s]" e2e-empty-answers (if (= e2e-empty-answers 1) "" "s"))
    ""))

(defun e2e--lsp-range (beg end)
  (list :start (eglot--pos-to-lsp-position beg) :end (eglot--pos-to-lsp-position end)))

(defun e2e--hint-overlays (beg end)
  (cl-remove-if-not (lambda (o) (overlay-get o 'eglot--inlay-hint)) (overlays-in beg end)))

(defun e2e--overlay-text (o)
  (substring-no-properties (or (overlay-get o 'after-string) (overlay-get o 'before-string) "")))

;;;; definition

(defun e2e--json-key-position (file token)
  "Buffer position (as in a buffer visiting FILE) of the quote opening TOKEN's key, or nil.
Found in the file's text, not through the server: the key is written either as is or with
non-ASCII characters as \\uXXXX escapes (Python's json.dump, as in OpenAI's encoder.json)."
  (with-temp-buffer
    (let ((coding-system-for-read 'utf-8))
      (insert-file-contents file))
    (let ((forms (list (concat "\"" token "\"")
                       (concat "\""
                               (mapconcat (lambda (c) (if (< c 128) (string c) (format "\\u%04x" c)))
                                          token "")
                               "\""))))
      (cl-loop for lit in (delete-dups forms)
               do (goto-char (point-min))
               when (re-search-forward (concat "[{,][ \t\n]*\\(" (regexp-quote lit) "\\)[ \t\n]*:") nil t)
               return (cons (match-beginning 1) lit)))))

(defun e2e--check-definition (merges vocab-file)
  "In MERGES, put point on the left part of the first merge whose left part is two or more
characters with a non-ASCII one (\"Ġt he\": the part \"Ġt\", written \"\\u0120t\" in
encoder.json), run `xref-find-definitions' as M-. does, and check the buffer and point.
Returns (OK . DETAIL)."
  (let ((mbuf (or (find-buffer-visiting merges) (e2e--open merges)))
        part line pos want)
    (switch-to-buffer mbuf)
    (goto-char (point-min))
    (unless (re-search-forward "^\\([^ \n]*[^\0-\177][^ \n]*\\) \\([^ \n]+\\)$" nil t)
      (error "no merge with a non-ASCII left part in %s" merges))
    (while (< (length (match-string 1)) 2)
      (unless (re-search-forward "^\\([^ \n]*[^\0-\177][^ \n]*\\) \\([^ \n]+\\)$" nil t)
        (error "no merge with a left part of 2+ characters in %s" merges)))
    (setq part (match-string-no-properties 1)
          line (line-number-at-pos (match-beginning 0))
          pos (1+ (match-beginning 1)))     ; inside the part, on its second character
    (setq want (e2e--json-key-position vocab-file part))
    (unless want (error "no key %S in %s" part vocab-file))
    ;; the vocabulary's buffer (when visited) at its start, so that landing there is the jump's doing
    (let ((vbuf (find-buffer-visiting vocab-file)))
      (when vbuf
        (with-current-buffer vbuf (goto-char (point-min)))))
    (goto-char pos)
    (let* ((t1 (float-time))
           (this-command 'xref-find-definitions)
           (err (condition-case e (progn (call-interactively #'xref-find-definitions) nil)
                  (error e)))
           (secs (- (float-time) t1))
           (buf (window-buffer (selected-window)))
           (got-file (buffer-file-name buf))
           (got (with-current-buffer buf (point)))
           (at (with-current-buffer buf
                 (buffer-substring-no-properties got (min (point-max) (+ got (length (cdr want)) 8)))))
           (same-file (and got-file (equal (file-truename got-file) (file-truename vocab-file)))))
      (e2e--write "definition.txt"
        (insert (format "merges %s line %d, point on %S of %S\nwant %s at %d (%s)\ngot %s at %d: %S\nerror %S\n"
                        merges line part (with-current-buffer mbuf
                                           (buffer-substring-no-properties (line-beginning-position) (line-end-position)))
                        vocab-file (car want) (cdr want) got-file got at err)))
      (cons (and (not err) same-file (= got (car want)))
            (format "%s line %d, point in %S -> %s at %d %S%s (want %s at %d: %s; %.1f s)"
                    (file-name-nondirectory merges) line part
                    (if got-file (file-name-nondirectory got-file) (buffer-name buf)) got at
                    (if err (format ", error %S" err) "")
                    (file-name-nondirectory vocab-file) (car want) (cdr want) secs)))))

;;;; binary files and vocab.txt (the formats of issues 25 and 27)

(defun e2e--facts (var)
  "The facts file named by environment variable VAR (JSON written by format_facts.py), or nil."
  (let ((f (getenv var)))
    (and f (file-readable-p f)
         (with-temp-buffer
           (let ((coding-system-for-read 'utf-8)) (insert-file-contents f))
           (json-parse-buffer :object-type 'plist :array-type 'list)))))

(defun e2e--row (n)
  "(ID . STORED-FORM) of the decoded view's line N (1-based) in this buffer, or nil."
  (save-excursion
    (goto-char (point-min))
    (forward-line (1- n))
    (when (looking-at " *\\([0-9]+\\) +\\(\"\\(?:[^\"\\\\]\\|\\\\.\\)*\"\\)")
      (cons (string-to-number (match-string 1))
            (ignore-errors (json-parse-string (match-string 2)))))))

(defun e2e--rows-differ (facts)
  "Rows of FACTS (:rows, :header_lines) that this view does not show, as text (nil: none)."
  (let ((header (plist-get facts :header_lines)) bad)
    (dolist (r (plist-get facts :rows))
      (let ((got (e2e--row (+ header (plist-get r :id) 1))))
        (unless (and got (= (car got) (plist-get r :id)) (equal (cdr got) (plist-get r :piece)))
          (push (format "row %d: %S (want %S)" (plist-get r :id) got (plist-get r :piece)) bad))))
    (and bad (mapconcat #'identity (nreverse bad) "; "))))

(defun e2e--wait-view ()
  "Wait until this buffer holds more than the \"decoding…\" line; its first line."
  (e2e--wait (lambda ()
               (save-excursion
                 (goto-char (point-min))
                 (and (> (buffer-size) 0) (not (looking-at ".*decoding"))))))
  (save-excursion (goto-char (point-min)) (buffer-substring-no-properties (point) (line-end-position))))

(defun e2e--fragment-rows ()
  "Ids of the view rows that Flymake marks utf8-fragment, sorted."
  (sort (delq nil (mapcar (lambda (d)
                            (when (equal (plist-get (alist-get 'eglot-lsp-diag (flymake-diagnostic-data d)) :code)
                                         "utf8-fragment")
                              (car (e2e--row (line-number-at-pos (flymake-diagnostic-beg d))))))
                          (flymake-diagnostics (point-min) (point-max))))
        #'<))

(defun e2e--binary-checks ()
  "The .model (E2E_MODEL + E2E_MODEL_FACTS), .gguf (E2E_GGUF + E2E_GGUF_FACTS) and vocab.txt
(E2E_VOCAB_TXT + E2E_VOCAB_FACTS) checks, each when its variables are set."
  (let ((model (getenv "E2E_MODEL")) (facts (e2e--facts "E2E_MODEL_FACTS")) buf first)
    (when (and model facts)
      (e2e-check "binary .model: visiting it shows the server's decoded view, read-only, never the bytes"
        (setq buf (e2e--open model))
        (with-current-buffer buf
          (setq first (e2e--wait-view))
          (e2e--wait #'eglot-current-server)  ; eglot attaches to the view once it holds text
          (cons (and (eq major-mode 'tokenizer-decoded-mode) (eglot-current-server)
                     (string-prefix-p (concat "# tokenizer-lsp decoded view of " (file-truename model)) first)
                     buffer-read-only (not (buffer-modified-p))
                     (= (count-lines (point-min) (point-max))
                        (+ (plist-get facts :header_lines) (plist-get facts :size))))
                (format "mode %s, eglot %s, header %s, read-only %s, modified %s, %d lines (want %d + %d); line 1: %s"
                        major-mode (and (eglot-current-server) t)
                        (string-prefix-p (concat "# tokenizer-lsp decoded view of " (file-truename model)) first)
                        buffer-read-only (buffer-modified-p) (count-lines (point-min) (point-max))
                        (plist-get facts :header_lines) (plist-get facts :size) (e2e--short first 100)))))
      (when (buffer-live-p buf)
        (with-current-buffer buf
          (e2e-check (format "binary .model: rows equal SentencePieceProcessor.id_to_piece (%d ids)"
                             (length (plist-get facts :rows)))
            (let ((bad (e2e--rows-differ facts)))
              (cons (null bad) bad)))
          (let* ((hover (plist-get facts :hover))
                 (line (+ (plist-get facts :header_lines) (plist-get hover :id) 1)))
            (e2e-check (format "binary .model: hover on the row of %s shows id %d and bytes %s"
                               (plist-get hover :piece) (plist-get hover :id) (plist-get hover :hex))
              (let ((info (save-excursion
                            (goto-char (point-min)) (forward-line (1- line))
                            (search-forward "\"")
                            (e2e--hover-at (1+ (point))))))
                (e2e--write "hover-model.txt" (insert (or info "(none)")))
                (cons (and info (string-match-p (format "id %d\\_>" (plist-get hover :id)) info)
                           (string-search (plist-get hover :hex) info))
                      (concat (e2e--short info 200) (e2e--retried))))))
          (e2e-check (format "binary .model: utf8-fragment on the rows of the %d byte pieces 0x80-0xFF"
                             (length (plist-get facts :fragments)))
            (let ((want (plist-get facts :fragments)) got)
              (e2e--wait (lambda () (flymake-start) (equal (setq got (e2e--fragment-rows)) want)))
              (cons (equal got want)
                    (format "%d Flymake diagnostics; fragment rows %s" (length (flymake-diagnostics))
                            (e2e--short (format "%S" got) 80)))))))))

  (let ((file (getenv "E2E_GGUF")) (facts (e2e--facts "E2E_GGUF_FACTS")) buf first)
    (when file
      (e2e-check "binary .gguf: not read by Emacs: the buffer holds the server's answer, no byte of the file"
        (setq buf (e2e--open file))
        (with-current-buffer buf
          (setq first (e2e--wait-view))
          (cons (and (eq major-mode 'tokenizer-decoded-mode) (string-prefix-p "# tokenizer-lsp" first)
                     ;; the file's magic and version bytes, not the word the view's header uses
                     (not (save-excursion (goto-char (point-min))
                                          (let ((case-fold-search nil))
                                            (search-forward "GGUF\3\0\0\0" nil t)))))
                (format "mode %s, %d lines, line 1: %s" major-mode (count-lines (point-min) (point-max))
                        (e2e--short first 160)))))
      (when (and (buffer-live-p buf) facts)
        (with-current-buffer buf
          (if (string-search "decoded view of" first)
              (e2e-check (format "binary .gguf: %d rows, equal to the gguf package's tokens" (plist-get facts :size))
                (let ((bad (e2e--rows-differ facts)))
                  (cons (and (null bad) (= (count-lines (point-min) (point-max))
                                           (+ (plist-get facts :header_lines) (plist-get facts :size))))
                        bad)))
            (princ (format "note: the server gives no view of a GGUF on this branch (%s)\n" (e2e--short first 120))))))))

  (let ((file (getenv "E2E_VOCAB_TXT")) (facts (e2e--facts "E2E_VOCAB_FACTS")))
    (when (and file facts)
      (e2e-check (format "vocab.txt: tokenizer-wordpiece-mode + eglot; hover on %S names id %d (WordPiece.read_file) = its line"
                         (plist-get facts :token) (plist-get facts :id))
        (let ((buf (e2e--open file)) lnum info)
          (with-current-buffer buf
            (goto-char (point-min))
            (when (re-search-forward (concat "^" (regexp-quote (plist-get facts :token)) "$") nil t)
              (setq lnum (1- (line-number-at-pos)))
              (setq info (e2e--hover-at (line-beginning-position))))
            (e2e--write "hover-vocab-txt.txt" (insert (or info "(none)")))
            (cons (and (eq major-mode 'tokenizer-wordpiece-mode) (eglot-current-server)
                       lnum (= lnum (plist-get facts :id))
                       info (string-match-p (format "id %d\\_>" (plist-get facts :id)) info))
                  (format "mode %s, line %s: %s%s" major-mode lnum (e2e--short info 200) (e2e--retried)))))))))

;;;; chat templates (issue 31)

(defun e2e--diag-code (d)
  (plist-get (alist-get 'eglot-lsp-diag (flymake-diagnostic-data d)) :code))

(defun e2e--chat-file (spec)
  "Checks of one file of E2E_CHAT_FACTS: SPEC has :path :filetype :diagnostics :hovers."
  (let* ((path (plist-get spec :path))
         (name (concat (file-name-nondirectory (directory-file-name (file-name-directory path))) "/"
                       (file-name-nondirectory path)))
         (want-mode (if (equal (plist-get spec :filetype) "json") 'tokenizer-json-mode 'tokenizer-chat-template-mode))
         (want-id (if (equal (plist-get spec :filetype) "json") "json" "jinja"))
         buf)
    (e2e-check (format "%s: %s + eglot-ensure start the server (language id %s)" name want-mode want-id)
      (setq buf (e2e--open path))
      (with-current-buffer buf
        (let ((server (eglot-current-server)))
          (cons (and server (eq major-mode want-mode)
                     (equal (ignore-errors (eglot--languageId server)) want-id))
                (format "mode %s, server %s, language id %S" major-mode (and server t)
                        (and server (ignore-errors (eglot--languageId server))))))))
    (when (and (buffer-live-p buf) (with-current-buffer buf (eglot-current-server)))
      (with-current-buffer buf
        (dolist (want (plist-get spec :diagnostics))
          (let* ((code (plist-get want :code))
                 (line (plist-get want :line))
                 (beg (eglot--lsp-position-to-point (list :line line :character (plist-get want :character))))
                 (end (eglot--lsp-position-to-point (list :line line :character (plist-get want :end_character))))
                 (exact (eq (plist-get want :exact) t))
                 (at (lambda (d) (and (equal (e2e--diag-code d) code)
                                      (if exact
                                          (and (= (flymake-diagnostic-beg d) beg) (= (flymake-diagnostic-end d) end))
                                        (and (>= (flymake-diagnostic-beg d) beg) (<= (flymake-diagnostic-end d) end)
                                             (< (flymake-diagnostic-beg d) (flymake-diagnostic-end d)))))))
                 (of-code (lambda () (cl-remove-if-not (lambda (d) (equal (e2e--diag-code d) code))
                                                      (flymake-diagnostics (point-min) (point-max))))))
            (e2e-check (format "%s: Flymake shows %s once, %s" name code
                               (if exact (format "on line %d, columns %d-%d (the literal)" (1+ line)
                                                 (plist-get want :character) (plist-get want :end_character))
                                 (format "on line %d (jinja2: %s)" (1+ line) (plist-get want :jinja2))))
              (e2e--wait (lambda () (flymake-start) (cl-some at (funcall of-code))))
              (let* ((got (funcall of-code))
                     (first (car got)))
                (e2e--write (format "diagnostics-%s.txt" (replace-regexp-in-string "/" "_" name))
                  (dolist (d (flymake-diagnostics (point-min) (point-max)))
                    (insert (format "%d-%d %s %s %s\n" (flymake-diagnostic-beg d) (flymake-diagnostic-end d)
                                    (flymake-diagnostic-type d) (e2e--diag-code d) (flymake-diagnostic-text d)))))
                (cons (and (= (length got) 1) (funcall at first))
                      (format "%d with that code (want positions %d-%d)%s" (length got) beg end
                              (if first (format ": %d-%d %S %s" (flymake-diagnostic-beg first) (flymake-diagnostic-end first)
                                                (buffer-substring-no-properties (flymake-diagnostic-beg first)
                                                                                (min (point-max) (+ 16 (flymake-diagnostic-beg first))))
                                                (e2e--short (flymake-diagnostic-text first) 100))
                                "")))))))
        (dolist (h (plist-get spec :hovers))
          (let ((pos (1+ (eglot--lsp-position-to-point (list :line (plist-get h :line) :character (plist-get h :character))))))
            (e2e-check (format "%s: eldoc hover on %s (line %d) shows %s" name (plist-get h :literal) (1+ (plist-get h :line))
                               (mapconcat #'identity (plist-get h :contains) ", "))
              (let ((info (e2e--hover-at pos)))
                (e2e--write (format "hover-%s.txt" (replace-regexp-in-string "/" "_" name)) (insert (or info "(none)")))
                (cons (and info (cl-every (lambda (w) (string-match-p (concat (regexp-quote w) "\\_>") info))
                                          (plist-get h :contains)))
                      (concat (e2e--short info 200) (e2e--retried)))))))))))

(defun e2e--chat-checks ()
  "Chat templates: each file of E2E_CHAT_FACTS (tests/editors/chat_facts.py), when set."
  (let ((facts (e2e--facts "E2E_CHAT_FACTS")))
    (dolist (spec (plist-get facts :files))
      (if (equal (plist-get spec :kind) "chat")
          (e2e--chat-file spec)
        ;; a .jinja that is no chat template (a web page's): no mode of ours, no server
        (e2e-check (format "%s: a .jinja that is no chat template starts no server"
                           (file-name-nondirectory (plist-get spec :path)))
          (let ((buf (find-file-noselect (plist-get spec :path))))
            (with-current-buffer buf
              (run-hooks 'post-command-hook)
              (cons (and (not (derived-mode-p 'tokenizer-chat-template-mode)) (not (eglot-current-server)))
                    (format "mode %s, server %s" major-mode (and (eglot-current-server) t))))))
        ;; and a config.json with no tokenizer beside it: the usual JSON mode, no server
        (e2e-check "config.json with no tokenizer beside it: js-json-mode, no server"
          (let ((file (expand-file-name "config.json" (file-name-directory (plist-get spec :path)))))
            (with-temp-file file (insert "{\"vocab_size\": 10}\n"))
            (with-current-buffer (find-file-noselect file)
              (run-hooks 'post-command-hook)
              (cons (and (eq major-mode 'js-json-mode) (not (eglot-current-server)))
                    (format "mode %s, server %s" major-mode (and (eglot-current-server) t))))))))))

;;;; batch

(defun tokenizer-e2e-batch ()
  (let* ((file (getenv "E2E_FILE"))
         (literal (getenv "E2E_LITERAL"))
         (text (getenv "E2E_TEXT"))
         (hex (getenv "E2E_HEX"))
         (want-fragments (and (getenv "E2E_FRAGMENTS") (string-to-number (getenv "E2E_FRAGMENTS"))))
         (merges (getenv "E2E_MERGES"))
         (t0 (float-time))
         buf bounds id)
    (princ (format "file: %s\nemacs %s, eglot %s, server: %s\n" file emacs-version
                   (or (ignore-errors
                         (require 'lisp-mnt)
                         (with-temp-buffer
                           (insert-file-contents (find-library-name "eglot"))
                           (lm-version)))
                       "?")
                   (mapconcat #'identity tokenizer-lsp-command " ")))
    (unwind-protect
        (progn
          ;; 1. connection through the shipped configuration
          (e2e-check "connect: config's major mode + eglot-ensure start the server"
            (setq buf (e2e--open file))
            (with-current-buffer buf
              (let ((server (eglot-current-server)))
                (cons (and server (eq major-mode 'tokenizer-json-mode)
                           (equal (ignore-errors (eglot--languageId server)) "json")
                           (eglot-server-capable :hoverProvider)
                           (eglot-server-capable :inlayHintProvider))
                      (format "mode %s, server %s, language id %S, hover %s, inlayHint %s (%.1f s)"
                              major-mode (and server (eglot-project-nickname server))
                              (and server (ignore-errors (eglot--languageId server)))
                              (and server (eglot-server-capable :hoverProvider) t)
                              (and server (eglot-server-capable :inlayHintProvider) t)
                              (- (float-time) t0))))))
          (unless (and buf (buffer-live-p buf) (with-current-buffer buf (eglot-current-server)))
            (error "no eglot server: the other checks cannot run"))
          (set-buffer buf)
          (setq bounds (e2e--literal-bounds literal)
                id (and bounds (e2e--id-after (cdr bounds))))
          (unless bounds (error "token literal %s not found in %s" literal file))

          ;; 2. diagnostics through Flymake (also waits until the document is indexed)
          (e2e-check "diagnostics: Flymake shows utf8-fragment, raised to warning by initializationOptions"
            (let* ((t1 (float-time))
                   (got (e2e--wait (lambda () eglot--diagnostics))))
              (flymake-start)
              (e2e--wait (lambda () (flymake-diagnostics)) 10)
              (let* ((all (flymake-diagnostics (point-min) (point-max)))
                     (frag (cl-remove-if-not
                            (lambda (d)
                              (equal (plist-get (alist-get 'eglot-lsp-diag (flymake-diagnostic-data d)) :code)
                                     "utf8-fragment"))
                            all))
                     (first (car (sort (copy-sequence frag)
                                       (lambda (a b) (< (flymake-diagnostic-beg a) (flymake-diagnostic-beg b))))))
                     (types (delete-dups (mapcar #'flymake-diagnostic-type frag))))
                (e2e--write "diagnostics.txt"
                  (dolist (d all)
                    (insert (format "%d-%d %s %s\n" (flymake-diagnostic-beg d) (flymake-diagnostic-end d)
                                    (flymake-diagnostic-type d) (flymake-diagnostic-text d)))))
                (cons (and got frag
                           (equal types '(eglot-warning))
                           (or (null want-fragments) (= (length frag) want-fragments))
                           (string-match-p "UTF-8\\|continuation" (flymake-diagnostic-text first)))
                      (format "%d diagnostics, %d utf8-fragment%s, types %S, first at %d %S: %s (%.1f s)"
                              (length all) (length frag)
                              (if want-fragments (format " (want %d)" want-fragments) "")
                              types (flymake-diagnostic-beg first)
                              (buffer-substring-no-properties
                               (flymake-diagnostic-beg first)
                               (min (point-max) (max (flymake-diagnostic-end first)
                                                     (+ 12 (flymake-diagnostic-beg first)))))
                              (e2e--short (flymake-diagnostic-text first) 120)
                              (- (float-time) t1))))))

          ;; 3. hover through eldoc, on a byte-level token
          (e2e-check (format "hover: %s shows %s, bytes %s, id %s" literal text hex id)
            (let ((info (e2e--hover-at (+ 2 (car bounds)))))
              (e2e--write "hover.txt" (insert (or info "(none)")))
              (cons (and info (string-search text info) (string-search hex info)
                         id (string-match-p (concat "\\_<" id "\\_>") info))
                    (concat (e2e--short info) (e2e--retried)))))

          ;; 4. inlay hints: the request eglot makes, answered by the server
          (e2e-check (format "inlay hint request: %s right after %s" text literal)
            (let* ((from (max (point-min) (- (car bounds) 200)))
                   (to (min (point-max) (+ (cdr bounds) 200)))
                   (want (eglot--pos-to-lsp-position (cdr bounds)))
                   (ask (lambda ()
                          (eglot--request (eglot-current-server) :textDocument/inlayHint
                                          (list :textDocument (eglot--TextDocumentIdentifier)
                                                :range (e2e--lsp-range from to)))))
                   (hints (let ((end (+ (float-time) e2e-timeout)) h)
                            (setq e2e-empty-answers 0)
                            (while (and (seq-empty-p (setq h (funcall ask))) (< (float-time) end))
                              (cl-incf e2e-empty-answers)
                              (accept-process-output nil 0.1))
                            h))
                   (hit (cl-find-if (lambda (h) (equal (plist-get h :position) want)) hints)))
              (cons (and hit (equal (plist-get hit :label) text))
                    (format "%d hints in ±200 chars; at %S: %S%s" (length hints) want
                            (and hit (plist-get hit :label)) (e2e--retried)))))

          ;; 5. inlay hints painted by eglot's own painter (what jit-lock calls on redisplay)
          (e2e-check (format "inlay hint painted: overlay after %s reads %s" literal text)
            (let* ((from (max (point-min) (- (car bounds) 200)))
                   (to (min (point-max) (+ (cdr bounds) 200))))
              (unless eglot-inlay-hints-mode (eglot-inlay-hints-mode 1))
              (eglot--update-hints-1 from to)
              (let* ((ovs (e2e--wait (lambda () (e2e--hint-overlays from to)) 20))
                     (at (cl-find-if (lambda (o) (= (overlay-end o) (cdr bounds))) ovs)))
                (cons (and at (string-search text (e2e--overlay-text at)))
                      (format "%d hint overlays, mode %s; after the literal: %S; e.g. %s"
                              (length ovs) eglot-inlay-hints-mode
                              (and at (e2e--overlay-text at))
                              (mapconcat (lambda (o) (format "%S" (e2e--overlay-text o)))
                                         (seq-take ovs 4) " "))))))

          ;; 6. a merges file beside the vocabulary: its own mode and language id, merge hover
          (when (and merges (file-readable-p merges))
            (e2e-check "merges file: hover on the first merge shows both parts and the rank"
              (let ((mbuf (e2e--open merges)) info)
                (with-current-buffer mbuf
                  (goto-char (point-min))
                  (when (looking-at "#") (forward-line 1))
                  (setq info (e2e--hover-at (point))))
                (e2e--write "hover-merges.txt" (insert (or info "(none)")))
                (cons (and info (string-match-p "merge rank [0-9]+" info) (string-search "→" info))
                      (format "mode %s: %s%s" (buffer-local-value 'major-mode mbuf) (e2e--short info 200)
                              (e2e--retried)))))

            ;; 7. M-. (xref-find-definitions) on a merge part: point lands on the part's key in
            ;; the vocabulary beside the merges file, another file
            (e2e-check "definition: xref-find-definitions on a merge part lands on its vocab key in the vocabulary beside it"
              (e2e--check-definition merges file)))

          ;; 8. binary files (decoded view) and a WordPiece vocab.txt
          (e2e--binary-checks)

          ;; 9. chat templates beside a tokenizer, and in tokenizer_config.json
          (e2e--chat-checks))
      (e2e--save-logs)
      (princ (format "batch Emacs: %d checks passed, %d failed (%.1f s)\n" e2e-passed e2e-failed (- (float-time) t0)))
      (let ((servers (apply #'append (hash-table-values eglot--servers-by-project))))
        (dolist (s servers)
          ;; keep the events buffer, to see the shutdown/exit exchange in the log
          (ignore-errors (eglot-shutdown s nil nil t))
          (ignore-errors (e2e--save-buffer-text (jsonrpc-events-buffer s) "eglot-events.log"))))
      (kill-emacs (if (and (> e2e-passed 0) (= e2e-failed 0)) 0 1)))))

;;;; tty (inside tmux)

(defun e2e--tty-state (literal)
  (let* ((bounds (e2e--literal-bounds literal))
         (ovs (and bounds (e2e--hint-overlays (max (point-min) (- (car bounds) 2000))
                                              (min (point-max) (+ (cdr bounds) 2000)))))
         (at (and bounds (cl-find-if (lambda (o) (= (overlay-end o) (cdr bounds))) ovs))))
    (list :server (and (eglot-current-server) t)
          :inlay-mode (and (boundp 'eglot-inlay-hints-mode) eglot-inlay-hints-mode)
          :overlays (length ovs)
          :after-literal (and at (e2e--overlay-text at)))))

(defun tokenizer-e2e-tty ()
  "Open E2E_FILE at the token and let the normal redisplay do the rest.
The shell sends a key (so that `eglot-ensure' connects after a command, as for a
user), waits, and reads the screen.  A timer writes what eglot has painted to
tty-state.txt every half second."
  (let* ((file (getenv "E2E_FILE"))
         (literal (getenv "E2E_LITERAL"))
         (buf (find-file file)))
    (with-current-buffer buf
      (let ((bounds (e2e--literal-bounds literal)))
        (when bounds
          (goto-char (cdr bounds))
          (recenter))))
    (run-with-timer
     0.5 0.5
     (lambda ()
       (when (buffer-live-p buf)
         (with-current-buffer buf
           (let ((state (e2e--tty-state literal)))
             (e2e--write "tty-state.txt"
               (insert (format "%S\n" state))))))))
    (add-hook 'kill-emacs-hook #'e2e--save-logs)))

(provide 'eglot-e2e)
;;; eglot-e2e.el ends here
