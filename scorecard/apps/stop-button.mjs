// A Stop button that sets a flag the app's own loop checks, as a chat UI's often does: the scorecard's plumbing
// around the apps that stop that way (none of it afterstop's). It records when the user pressed Stop (out.stopNs)
// and when the loop first saw the press and acted on it (out.actedNs): the tokens the server sent in between are
// out of any trace's sight (scorecard/run-app.ts truthAfterStop counts them apart).

/** A button writing into the app's `out`, dated by its clock `now` (ns since the epoch, as text). */
export function stopButton(out, now) {
  let pressed = false;
  return {
    /** The user presses Stop. */
    press() {
      out.stopNs = now();
      pressed = true;
    },
    /** Whether Stop was pressed; the first time the loop learns it, the moment it acts on it. */
    heeded() {
      if (pressed && out.actedNs === undefined) out.actedNs = now();
      return pressed;
    },
  };
}
