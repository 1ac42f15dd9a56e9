// Record Vercel AI SDK telemetry (the `ai` package's `experimental_telemetry`).
//
// A real `generateText` with a real `tool`, its model the SDK's own `MockLanguageModelV3`
// (from `ai/test`), which asks for get_weather(city) once and then answers; spans go to the
// OpenTelemetry SDK's InMemorySpanExporter and are written with `@opentelemetry/otlp-transformer`'s
// JsonTraceSerializer (the OTLP/JSON the OTLP HTTP exporter sends). Run with node from a folder
// holding the packages (versions in the fixture folder's versions.txt):
//
//   npm install ai @opentelemetry/api @opentelemetry/sdk-trace-base @opentelemetry/otlp-transformer \
//     @opentelemetry/resources @opentelemetry/context-async-hooks zod
//   node tests/adapters/producers/vercel/record_vercel_ai.mjs <node_modules folder> <out folder>
import { createRequire } from "node:module";
import { writeFileSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";

const [modules, out] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modules), "x.js"));
const { generateText, tool, stepCountIs } = require("ai");
const { MockLanguageModelV3 } = require("ai/test");
const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } =
  require("@opentelemetry/sdk-trace-base");
const { JsonTraceSerializer } = require("@opentelemetry/otlp-transformer");
const { resourceFromAttributes } = require("@opentelemetry/resources");
const { z } = require("zod");
const { context } = require("@opentelemetry/api");
const { AsyncLocalStorageContextManager } = require("@opentelemetry/context-async-hooks");

// What NodeSDK registers: without a context manager no span would know its parent.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

const usage = {
  inputTokens: { total: 52, noCache: 52, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 14, text: 14, reasoning: undefined },
};

function weatherModel(city) {
  return new MockLanguageModelV3({
    modelId: "mock-weather-model",
    doGenerate: async (options) => {
      const last = options.prompt[options.prompt.length - 1];
      if (last.role === "tool") {
        const failed = JSON.stringify(last.content).includes("error");
        const text = failed ? `Sorry, I could not get the weather in ${city}.`
                            : `It is 18°C and sunny in ${city}.`;
        return { content: [{ type: "text", text }],
                 finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
      }
      return {
        content: [{ type: "tool-call", toolCallId: "call_1", toolName: "get_weather",
                    input: JSON.stringify({ city }) }],
        finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [],
      };
    },
  });
}

async function record(name, city, failing) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": "weather-agent" }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer("ai");
  await generateText({
    model: weatherModel(city),
    system: "You answer weather questions.",
    prompt: "What is the weather in Paris?",
    tools: {
      get_weather: tool({
        description: "Current weather of a city.",
        inputSchema: z.object({ city: z.string() }),
        execute: async ({ city }) => {
          if (failing) throw new Error("weather service unavailable");
          return { city, temperature_c: 18, sky: "sunny" };
        },
      }),
    },
    stopWhen: stepCountIs(5),
    experimental_telemetry: { isEnabled: true, tracer, functionId: "weather_agent" },
  });
  await provider.forceFlush();
  const bytes = JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans());
  const document = JSON.parse(Buffer.from(bytes).toString("utf8"));
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, `${name}.otlp.json`), JSON.stringify(document, null, 1) + "\n");
}

await record("weather", "Paris", false);
await record("weather_wrong_city", "London", false);
await record("weather_tool_error", "Paris", true);
const version = (pkg) =>
  JSON.parse(readFileSync(path.join(modules, pkg, "package.json"), "utf8")).version;
writeFileSync(path.join(out, "versions.txt"),
  ["ai", "@opentelemetry/sdk-trace-base", "@opentelemetry/otlp-transformer",
   "@opentelemetry/context-async-hooks"]
    .map((pkg) => `${pkg}@${version(pkg)}\n`).join(""));
