// One wording for a caught value in the log and in notifications: an Error's message, a
// message-like object's (vscode-languageclient rejects with ResponseError-shaped objects), else
// the value as text.
export function errorText(err: unknown): string {
  if (err instanceof Error) {
    return err.message;
  }
  if (typeof err === 'object' && err !== null && 'message' in err) {
    return String((err as { message: unknown }).message);
  }
  return String(err);
}
