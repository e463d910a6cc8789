// Clean-up that runs where no caller can take an error (a finalizer, a settled wait, an undo
// after the error that matters): a failure becomes a process warning, neither thrown (a finalizer
// that throws crashes the process) nor lost.

/** Runs `step`; if it throws, emits `cumem: <what> failed: <message>` as a `CumemWarning`. */
export function runOrWarn(step: () => void, what: string): void {
  try {
    step();
  } catch (error) {
    process.emitWarning(`cumem: ${what} failed: ${(error as Error).message}`, 'CumemWarning');
  }
}
