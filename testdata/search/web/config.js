// config.js - settings for the web client.

/**
 * Parses the JSON settings text and fills in defaults.
 * @param {string} text the raw settings
 */
function parseConfig(text) {
  const raw = JSON.parse(text);
  return Object.assign({ theme: "light", retries: 3 }, raw);
}

/** Renders the settings panel into a DOM element. */
function renderPanel(root, settings) {
  root.innerHTML = "";
  for (const key of Object.keys(settings)) {
    const row = document.createElement("div");
    row.textContent = key + ": " + settings[key];
    root.appendChild(row);
  }
}

module.exports = { parseConfig, renderPanel };
