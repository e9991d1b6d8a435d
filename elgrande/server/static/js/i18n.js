// The scripts' texts in the page's language (docs/i18n.md). The catalog is JSON made by
// the server from the same .po files as the templates' (/i18n/<lang>.json, its URL in
// <html data-catalog>); a module that imports this one waits for it (top-level await).
// Texts are written t("Hello %(name)s", {name}) so `make messages` finds them.
const root = document.documentElement;
const lang = root.lang || "en";

async function load() {
  const url = root.dataset.catalog;
  if (!url) return { messages: {}, plural: ["one", "other"] };
  try {
    const answer = await fetch(url, { credentials: "same-origin" });
    if (answer.ok) return await answer.json();
  } catch { /* offline or refused: English, as written in the scripts */ }
  return { messages: {}, plural: ["one", "other"] };
}

const catalog = await load();
const rules = new Intl.PluralRules(lang);
const OPEN = "\u27e6", CLOSE = "\u27e7";
const ACCENTS = { a: "á", c: "ç", e: "é", i: "í", n: "ñ", o: "ö", u: "û", y: "ý",
  A: "Á", C: "Ç", E: "É", I: "Í", N: "Ñ", O: "Ö", U: "Û", Y: "Ý" };

// The pseudo-language (tests): every translated text accented and bracketed, its
// placeholders kept, so text that bypasses t() stands out.
function pseudo(text) {
  const kept = /%\(\w+\)[sd]|\{\w*\}|<[^>]*>/g;
  let out = "", at = 0;
  for (const m of text.matchAll(kept)) {
    out += text.slice(at, m.index).replace(/[aceinouyACEINOUY]/g, (c) => ACCENTS[c]) + m[0];
    at = m.index + m[0].length;
  }
  out += text.slice(at).replace(/[aceinouyACEINOUY]/g, (c) => ACCENTS[c]);
  return OPEN + out + CLOSE;
}

function fill(text, values) {
  if (!values) return text;
  return text.replace(/%\((\w+)\)s/g, (all, name) => (name in values ? String(values[name]) : all));
}

// A text in the page's language, its %(name)s fields filled in from `values`.
export function t(message, values) {
  const found = catalog.messages[message];
  const text = typeof found === "string" ? found : catalog.pseudo ? pseudo(message) : message;
  return fill(text, values);
}

// The form for `n` (%(num)s is n, formatted for the language).
export function ngettext(singular, plural, n, values) {
  const forms = catalog.messages[singular];
  let text;
  if (Array.isArray(forms)) {
    const index = catalog.plural.indexOf(rules.select(n));
    text = forms[index >= 0 ? index : forms.length - 1];
  } else {
    text = n === 1 ? singular : plural;
    if (catalog.pseudo) text = pseudo(text);
  }
  return fill(text, { num: formatNumber(n), ...values });
}

export function formatNumber(n) {
  return new Intl.NumberFormat(lang).format(n);
}

export function formatTime(date, options = { hour: "2-digit", minute: "2-digit" }) {
  return new Intl.DateTimeFormat(lang, options).format(date);
}

export const language = lang;
