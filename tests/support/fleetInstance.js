/**
 * The entry of an instance of the local fleet started by a test (tests/support/stack.ts, startTestFleet): the
 * TypeScript sources as they are (tests/support/tsRegister.js), as `npm start` runs devhost/instance.ts's
 * compiled form.
 */
const path = require('node:path');

require('./tsRegister');
require(path.resolve(__dirname, '..', '..', 'devhost', 'instance.ts'));
