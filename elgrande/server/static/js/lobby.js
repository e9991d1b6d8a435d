// New-game form: show one row per seat, and only the fields a seat's kind needs.
const players = document.getElementById("players");

function refresh() {
  const n = Number(players.value);
  for (const row of document.querySelectorAll(".seat-row")) {
    const i = Number(row.dataset.seat);
    const kind = row.querySelector(`#seat${i}`).value;
    row.classList.toggle("d-none", i >= n);
    row.querySelectorAll("select, input").forEach((el) => { el.disabled = i >= n; });
    row.querySelector(`#invite${i}`).closest(".col-4").classList.toggle("invisible", kind !== "invited");
    row.querySelector(`#level${i}`).closest(".col-4").classList.toggle("invisible", kind !== "bot");
  }
}

if (players) {
  document.getElementById("new-game").addEventListener("change", refresh);
  refresh();
}
