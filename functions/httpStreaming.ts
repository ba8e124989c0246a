import { app } from '@azure/functions';

// The host hands each request body to the function as a stream instead of reading all of it first,
// so a caller refused from its headers (no token, wrong role) costs no more than the stream's buffer.
app.setup({ enableHttpStream: true });
