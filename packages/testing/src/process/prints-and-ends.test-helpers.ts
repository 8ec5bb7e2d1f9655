/** Does its work and ends without calling process.exit: the watchdog must not keep it alive. */
const answer: number = 6 * 7;
console.log(`answer ${answer}`);
