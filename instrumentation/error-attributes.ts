/** How an error is described on a span: `error.type` and the status message. */

const MAX_MESSAGE = 1024;

/**
 * `error.type`: an HTTP status when the error carries one (the OpenAI and
 * Anthropic SDKs' API errors do), else the error's name, else its JS type.
 */
export function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number') return String(status);
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string' && name !== '') return name;
    return 'Error';
  }
  return typeof error;
}

/** The status message: the error's message, at most 1024 characters. */
export function errorMessage(error: unknown): string {
  let message: string;
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    message = (error as { message: string }).message;
  } else {
    try {
      message = String(error);
    } catch {
      message = 'unprintable error';
    }
  }
  return message.length > MAX_MESSAGE ? message.slice(0, MAX_MESSAGE) : message;
}
