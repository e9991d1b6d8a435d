// The waiting room reloads itself when someone joins or the game starts.
const gameId = document.getElementById("room").dataset.game;
const proto = location.protocol === "https:" ? "wss" : "ws";

function connect() {
  const ws = new WebSocket(`${proto}://${location.host}/ws/games/${gameId}`);
  let first = true;
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "state" || !first) location.reload();
    first = false;
  };
  ws.onclose = () => setTimeout(connect, 1000);
}
connect();
