/** A process that prints a line and never listens: for readiness time-outs. */
console.log('started but not listening');
setInterval(() => undefined, 60_000);
