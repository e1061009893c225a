// Records what the OpenTelemetry JS SDK's OTLP/HTTP protobuf exporter sends for one RAG trace
// (a root span, a retrieval span and a chat span in the GenAI conventions), as the fixture
// tests/data/otlp/js_sdk_trace.pb that tala serve's tests replay. Run once, by hand, in a
// scratch folder (node finds the packages beside the script):
//   npm install --ignore-scripts @opentelemetry/api@1 @opentelemetry/sdk-trace-base@1 \
//     @opentelemetry/exporter-trace-otlp-proto@0.53 @opentelemetry/resources@1
//   cp TALA/tools/record_otlp_js_fixture.js . && node record_otlp_js_fixture.js \
//     TALA/tests/data/otlp/js_sdk_trace.pb
const http = require('http');
const fs = require('fs');
const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto');
const { Resource } = require('@opentelemetry/resources');
const api = require('@opentelemetry/api');

const out = process.argv[2] || 'js_sdk_trace.pb';
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    fs.writeFileSync(out, Buffer.concat(chunks));
    console.log(`${req.method} ${req.url} ${req.headers['content-type']} ${Buffer.concat(chunks).length} bytes`);
    res.writeHead(200, { 'Content-Type': 'application/x-protobuf' });
    res.end();
  });
});
server.listen(0, '127.0.0.1', async () => {
  const url = `http://127.0.0.1:${server.address().port}/v1/traces`;
  const provider = new BasicTracerProvider({
    resource: new Resource({ 'service.name': 'ferry-bot', 'service.version': '1.4' }),
  });
  provider.addSpanProcessor(new BatchSpanProcessor(new OTLPTraceExporter({ url })));
  const tracer = provider.getTracer('record-fixture');
  const root = tracer.startSpan('answer question');
  const ctx = api.trace.setSpan(api.context.active(), root);
  const retrieval = tracer.startSpan('retrieve', {
    attributes: {
      'gen_ai.operation.name': 'retrieval',
      'gen_ai.retrieval.query.text': 'When does the ferry sail?',
      'gen_ai.retrieval.documents': JSON.stringify([
        { id: 'timetable#2', content: 'The ferry sails every 20 minutes from Pier 3.' },
        { id: 'fares#1', content: 'A single ride costs 2.40 euros.' },
      ]),
    },
  }, ctx);
  retrieval.end();
  const chat = tracer.startSpan('chat gpt-4o-mini', {
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.input.messages': JSON.stringify([
        { role: 'system', parts: [{ type: 'text', content: 'Answer from the documents.' }] },
        { role: 'user', parts: [{ type: 'text', content: 'When does the ferry sail?' }] },
      ]),
      'gen_ai.output.messages': JSON.stringify([
        { role: 'assistant', parts: [{ type: 'text', content: 'The ferry sails every 20 minutes from Pier 3.' }] },
      ]),
    },
  }, ctx);
  chat.end();
  root.end();
  await provider.forceFlush();
  await provider.shutdown();
  server.close();
});
