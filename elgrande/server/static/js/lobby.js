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

// Pace: playing hours and holidays apply to daily tables only; the computer level to
// any clocked table.
const pace = document.getElementById("pace");

function refreshPace() {
  const option = pace.options[pace.selectedIndex];
  const daily = option.dataset.daily === "1";
  const clocked = pace.value !== "none";
  document.querySelectorAll("#pace-fields .daily-only").forEach((el) => {
    el.classList.toggle("d-none", !daily);
    el.querySelectorAll("select, input").forEach((field) => { field.disabled = !daily; });
  });
  const standIn = document.getElementById("stand_in");
  standIn.disabled = !clocked;
  standIn.closest(".col-sm-6").classList.toggle("invisible", !clocked);
}

if (pace) {
  pace.addEventListener("change", refreshPace);
  refreshPace();
}
