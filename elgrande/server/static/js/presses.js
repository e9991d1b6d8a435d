// The game page rebuilds its controls (map regions, cards, bids, buttons) for every state,
// so a state that arrives while the player holds the button down (another seat's move, a
// secret choice made) replaces the pressed control, and the browser then sends no click.
// A press that ends on the control that took its place (the same data-key) is clicked here.
export function keepPressesAcrossRedraws(root = document) {
  let pressed = null;
  root.addEventListener("pointerdown", (e) => {
    pressed = e.target instanceof Element ? e.target.closest("[data-key]") : null;
  }, true);
  root.addEventListener("pointerup", (e) => {
    const was = pressed;
    pressed = null;
    if (!was || was.isConnected) return; // not redrawn: the browser's own click acts
    const under = document.elementFromPoint(e.clientX, e.clientY);
    const now = under && under.closest("[data-key]");
    if (!now || now.dataset.key !== was.dataset.key || now.disabled) return;
    now.dispatchEvent(new MouseEvent("click", {
      bubbles: true, cancelable: true, view: window, clientX: e.clientX, clientY: e.clientY,
    }));
  }, true);
}
