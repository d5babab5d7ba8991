// Every message a client receives, in the order it came off the wire.  The
// TypeScript SDK client runs notification handlers a microtask after it
// handles a response, so a progress notification read in the same chunk as
// the answer never reaches onprogress: tests that check what the server
// sent, and in which order, read it here.  Call after client.connect.
export function wireTap(client) {
  const wire = [];
  const t = client.transport;
  const next = t.onmessage;
  t.onmessage = (msg, extra) => { wire.push(msg); next(msg, extra); };
  return wire;
}
