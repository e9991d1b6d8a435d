// Offer the browser's own time zone when it differs from the one saved.
import { t } from "./i18n.js";
const select = document.getElementById("time_zone");
const button = document.getElementById("browser-zone");
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
if (select && button && zone && zone !== select.dataset.current
    && [...select.options].some((option) => option.value === zone)) {
  button.textContent = t("Use this browser's: %(zone)s", { zone });
  button.classList.remove("d-none");
  button.addEventListener("click", () => { select.value = zone; });
}
