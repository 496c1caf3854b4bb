// onlooker for opencode: forwards opencode's hooks to onlooker's hook service and applies its
// answers (feedback after a tool's output, context for a compaction), adds the `/observer …`
// command and the observer_* tools, both answered by the service. The assistant's words go too:
// each text or reasoning part of an assistant message once, when it is complete (never a streamed
// delta), before the session's next hook; the service keeps them only for reviewers that read
// them. Written by `onlooker install opencode`; `onlooker uninstall opencode` removes it.
//
// It speaks the hook client's protocol: a 4-byte big-endian length, then the JSON input, over
// <data home>/run/hookd.sock; the answer comes back framed the same way. When no service listens
// it runs `onlooker hook` (the hook client, which starts one), found at run time: $ONLOOKER_BIN,
// else the launcher `onlooker install` writes into the data home (<data home>/bin/onlooker), else
// `onlooker` on PATH; so this file names no path of a machine and can be committed. It fails
// open: whatever goes wrong, opencode goes on; a missing onlooker is logged once.
import type { Hooks, Plugin, PluginInput, tool as Tool } from "@opencode-ai/plugin"
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { createConnection } from "node:net"
import { homedir, platform } from "node:os"
import { delimiter, join } from "node:path"

const SETTINGS = { python: "", client: "" } // onlooker:settings
const OBSERVER_TOOLS: ObserverTool[] = [] // onlooker:observer-tools

const ANSWER_MS = 20_000
const CLIENT_MS = 45_000
const MAX_SOCKET_PATH = 100
const EVENTS = new Set(["session.created", "session.idle", "session.compacted", "session.deleted"])
const WORDS_MS = 1_000 // how long a hook waits for the session's words still being written
const INFO_MS = 2_000 // how long a session's first hook waits for opencode to say what it is
const REMEMBERED = 4096 // message, part and session ids kept to tell the assistant's and what was sent

type Answer = { append?: string; context?: string[]; output?: string; prompt?: string; notice?: string }
type JsonProperty = { [key: string]: unknown; type?: string; enum?: string[]; description?: string; minimum?: number; maximum?: number; minLength?: number; maxLength?: number }
type Zod = typeof Tool.schema
type Schema = InstanceType<Zod["ZodType"]>
type Shape = Record<string, Schema | ReturnType<Schema["optional"]>>
type BusEvent = Parameters<NonNullable<Hooks["event"]>>[0]["event"]
type Part = Extract<BusEvent, { type: "message.part.updated" }>["properties"]["part"]
type Open = { sessionID: string; start?: number; done: Promise<void>; finish: () => void }
type ObserverTool = { name: string; description: string; schema: { [key: string]: unknown; properties?: Record<string, JsonProperty>; required?: string[] } }

const COMMAND = "observer"
const COMMAND_TEMPLATE =
  "onlooker observer command: $ARGUMENTS\n\n(onlooker's plugin puts the command's answer here.)"

function dataHome(): string {
  const chosen = process.env.ONLOOKER_HOME
  if (chosen) return chosen.startsWith("~") ? join(homedir(), chosen.slice(1)) : chosen
  const xdg = process.env.XDG_DATA_HOME ?? ""
  if (platform() === "win32") {
    const local = process.env.LOCALAPPDATA ?? join(homedir(), "AppData", "Local")
    return join(local, "onlooker")
  }
  if (xdg.startsWith("/")) return join(xdg, "onlooker")
  if (platform() === "darwin") return join(homedir(), "Library", "Application Support", "onlooker")
  return join(homedir(), ".local", "share", "onlooker")
}

function frame(payload: Buffer): Buffer {
  const header = Buffer.alloc(4)
  header.writeUInt32BE(payload.length, 0)
  return Buffer.concat([header, payload])
}

function parse(raw: Buffer): Answer {
  if (raw.length === 0) return {}
  const value: unknown = JSON.parse(raw.toString("utf8"))
  return value !== null && typeof value === "object" ? (value as Answer) : {}
}

/** The service's answer over its socket; rejects when no service listens. */
function askSocket(socketPath: string, payload: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket = createConnection({ path: socketPath })
    socket.setTimeout(ANSWER_MS, () => socket.destroy(new Error("no answer in time")))
    socket.on("connect", () => socket.write(frame(payload)))
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("error", reject)
    socket.on("close", () => {
      const all = Buffer.concat(chunks)
      if (all.length < 4) return reject(new Error("the service closed without an answer"))
      const size = all.readUInt32BE(0)
      if (all.length < 4 + size) return reject(new Error("the answer was cut short"))
      try {
        resolve(parse(all.subarray(4, 4 + size)))
      } catch (error) {
        reject(error)
      }
    })
  })
}

/** The command that runs the hook client here, found at run time; undefined when none is. */
function hookCommand(): string[] | undefined {
  const settings = SETTINGS as { python: string; client: string }
  if (settings.python && existsSync(settings.python) && existsSync(settings.client)) {
    return [settings.python, "-I", "-S", settings.client] // a file written by an earlier install
  }
  const candidates = [process.env.ONLOOKER_BIN ?? "", join(dataHome(), "bin", "onlooker")]
  for (const folder of (process.env.PATH ?? "").split(delimiter)) {
    if (folder) candidates.push(join(folder, "onlooker"))
  }
  const found = candidates.find((candidate) => candidate !== "" && existsSync(candidate))
  return found === undefined ? undefined : [found, "hook"]
}

/** The hook client's answer: it starts the service if needed, and spools what it cannot send. */
function askClient(command: string[], payload: Buffer): Promise<Answer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    const child = spawn(command[0], command.slice(1), {
      stdio: ["pipe", "pipe", "ignore"],
      env: process.env,
    })
    const timer = setTimeout(() => child.kill(), CLIENT_MS)
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk))
    child.on("error", () => resolve({}))
    child.on("close", () => {
      clearTimeout(timer)
      try {
        resolve(parse(Buffer.concat(chunks)))
      } catch {
        resolve({})
      }
    })
    child.stdin.on("error", () => undefined)
    child.stdin.end(payload)
  })
}

export const OnlookerPlugin: Plugin = async (input: PluginInput): Promise<Hooks> => {
  // a model call onlooker makes through the user's opencode (onlooker.llm.opencode): no hook,
  // so onlooker never observes its own model calls (no recursion)
  if (process.env.ONLOOKER_NESTED) return {}
  let warned = false
  const command = hookCommand()
  const loaded = Date.now()
  const begun = new Set<string>() // sessions whose start was sent (or that began before `loaded`)

  async function warnOnce(message: string): Promise<void> {
    if (warned) return
    warned = true
    try {
      await input.client.app.log({ body: { service: "onlooker", level: "warn", message } })
    } catch {
      // logging is a courtesy: never let it fail a hook
    }
  }

  /** A score notice is for the user, not the model: opencode's log, and a toast in its TUI. */
  async function notify(message: string): Promise<void> {
    try {
      await input.client.app.log({ body: { service: "onlooker", level: "info", message } })
    } catch {
      // logging is a courtesy: never let it fail a hook
    }
    try {
      await input.client.tui.showToast({ body: { title: "onlooker", message, variant: "info" } })
    } catch {
      // no TUI (opencode run): the log has it
    }
  }

  async function forward(hook: string, sessionID: string, data: object, out: object = {}): Promise<Answer> {
    if (command === undefined) {
      await warnOnce("onlooker is not installed on this machine, so its plugin does nothing: pipx install onlooker (or uv tool install onlooker), then onlooker install opencode")
      return {}
    }
    if (hook === "event" && (data as { type?: string }).type === "session.created") {
      if (begun.has(sessionID)) return {} // its start went already, read from opencode
      remember(begun, sessionID)
    } else if (!begun.has(sessionID)) {
      remember(begun, sessionID)
      void inTurn(sessionID, () => begin(command, sessionID))
    }
    return await inTurn(sessionID, () => send(command, payloadOf(hook, sessionID, data, out)))
  }

  function payloadOf(hook: string, sessionID: string, data: object, out: object): Buffer {
    const body = { host: "opencode", hook, session_id: sessionID, cwd: input.directory, input: data, output: out }
    return Buffer.from(JSON.stringify(body), "utf8")
  }

  /** A session's start, before its first hook when its creation has not come yet: opencode does
   * not await its bus events, so a subagent's first prompt can come before its `session.created`
   * (the service would then take the session as resumed, and record a second start when the event
   * comes). Its info is asked of opencode; a session created before this plugin was loaded sends
   * none (it is resumed here, and no event of its creation will come). */
  async function begin(command: string[], sessionID: string): Promise<Answer> {
    let info: { time?: { created?: number } } | undefined
    let timer: ReturnType<typeof setTimeout> | undefined
    try {
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, INFO_MS)))
      info = (await Promise.race([input.client.session.get({ path: { id: sessionID } }), late]))?.data ?? undefined
    } catch {
      info = undefined
    } finally {
      clearTimeout(timer)
    }
    if (info === undefined) {
      begun.delete(sessionID) // not known here: its creation, should it come, is sent
      return {}
    }
    if ((info.time?.created ?? 0) < loaded) return {} // resumed: the service says so
    const created = { type: "session.created", properties: { info } }
    return await send(command, payloadOf("event", sessionID, created, {}))
  }

  async function send(command: string[], payload: Buffer): Promise<Answer> {
    const socketPath = join(dataHome(), "run", "hookd.sock")
    try {
      if (socketPath.length <= MAX_SOCKET_PATH && existsSync(socketPath)) {
        return await askSocket(socketPath, payload)
      }
    } catch {
      // not listening (or stopping): the client starts the service and asks again
    }
    try {
      return await askClient(command, payload)
    } catch (error) {
      await warnOnce(`onlooker did not answer: ${String(error)}`)
      return {}
    }
  }

  const sending = new Map<string, Promise<unknown>>() // each session's last hook on its way

  /** A session's hooks reach the service one at a time, in the order opencode raised them here:
   * opencode does not await its bus events, and two hook clients waiting for a service to start
   * connect in any order, so its creation could otherwise come after its first prompt (and the
   * session would be recorded as started twice: once resumed, once created). */
  function inTurn(sessionID: string, work: () => Promise<Answer>): Promise<Answer> {
    const mine = (sending.get(sessionID) ?? Promise.resolve()).then(work)
    const settled = mine.catch(() => undefined)
    sending.set(sessionID, settled)
    void settled.then(() => {
      if (sending.get(sessionID) === settled) sending.delete(sessionID)
    })
    return mine
  }

  const assistant = new Set<string>() // ids of the assistant's messages
  const sent = new Set<string>() // parts forwarded
  const open = new Map<string, Open>() // the assistant's parts being written, by id

  function remember(ids: Set<string>, id: string): void {
    ids.add(id)
    if (ids.size > REMEMBERED) ids.delete(ids.values().next().value as string)
  }

  function finished(id: string): void {
    open.get(id)?.finish()
    open.delete(id)
  }

  /** A text or reasoning part of the assistant's, forwarded once when it is complete: text at
   * `experimental.text.complete` (which opencode awaits before it goes on), reasoning (and text,
   * should that hook not come) when the part's update says it ended. */
  async function words(part: Part): Promise<void> {
    if (part.type !== "text" && part.type !== "reasoning") return
    if (!assistant.has(part.messageID) || sent.has(part.id)) return
    if (part.type === "text" && (part.synthetic || part.ignored)) return
    const start = part.time?.start
    if (part.time?.end) return await said(part.sessionID, part.messageID, part.id, part.type, part.text, start)
    if (!open.has(part.id)) {
      let finish = () => undefined as void
      const done = new Promise<void>((resolve) => (finish = resolve))
      open.set(part.id, { sessionID: part.sessionID, start, done, finish })
    }
  }

  /** A part sent with when it began (`time.start`, when known): the service puts the words
   * before the tool calls that began after them, should they come after the call's hook. */
  async function said(sessionID: string, messageID: string, id: string, type: string, text: string, start?: number): Promise<void> {
    if (sent.has(id)) return
    remember(sent, id)
    try {
      const part = { id, sessionID, messageID, type, text, ...(start ? { time: { start } } : {}) }
      if (text.trim()) await forward("event", sessionID, { type: "message.part.updated", properties: { part } })
    } finally {
      finished(id)
    }
  }

  /** Wait (a little at most) for the session's words being written, so they come before its next
   * hook: the model's text before a tool call ends only with its stream, after the call starts. */
  async function spoken(sessionID: string): Promise<void> {
    const waiting = [...open.values()].filter((part) => part.sessionID === sessionID).map((part) => part.done)
    if (waiting.length === 0) return
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, WORDS_MS)))
    await Promise.race([Promise.all(waiting), late])
    clearTimeout(timer)
  }

  const hooks: Hooks = {
    config: async (config) => {
      const commands = (config.command ??= {})
      commands[COMMAND] ??= {
        template: COMMAND_TEMPLATE,
        description: "onlooker's session scores and instruction improvements: /observer help",
      }
    },
    "command.execute.before": async (hookInput, output) => {
      if (hookInput.command !== COMMAND) return
      const answer = await forward("command.execute.before", hookInput.sessionID, hookInput)
      const text = answer.prompt ?? "onlooker did not answer; is it installed? (onlooker install opencode)"
      const shown =
        `Here is onlooker's answer to \`/observer ${hookInput.arguments}\`. Show it to the user ` +
        `as it is, in a code block, and do nothing else.\n\n${text}`
      // opencode sends these same parts on: change them in place
      const first = output.parts.find((part) => part.type === "text")
      if (first && first.type === "text") first.text = shown
      for (const part of output.parts) if (part !== first && part.type === "text") part.text = ""
    },
    event: async ({ event }) => {
      if (event.type === "message.updated") {
        if (event.properties.info.role === "assistant") remember(assistant, event.properties.info.id)
        return
      }
      if (event.type === "message.part.updated") return await words(event.properties.part)
      if (!EVENTS.has(event.type)) return
      const properties = event.properties as { sessionID?: string; info?: { id?: string } }
      const sessionID = properties.sessionID ?? properties.info?.id ?? ""
      if (!sessionID) return
      await spoken(sessionID)
      if (event.type === "session.idle" || event.type === "session.deleted") {
        for (const [id, part] of open) if (part.sessionID === sessionID) finished(id) // never ended
      }
      await forward("event", sessionID, event)
    },
    "chat.message": async (hookInput, output) => {
      const text = output.parts
        .map((part) => (part.type === "text" && !part.synthetic ? part.text : ""))
        .filter((part) => part)
        .join("\n")
      const answer = await forward("chat.message", hookInput.sessionID, hookInput, { text })
      if (answer.notice) await notify(answer.notice)
    },
    "tool.execute.after": async (hookInput, output) => {
      await spoken(hookInput.sessionID)
      const answer = await forward("tool.execute.after", hookInput.sessionID, hookInput, {
        title: output.title,
        output: output.output,
        metadata: output.metadata,
      })
      if (answer.append) output.output = output.output ? `${output.output}\n\n${answer.append}` : answer.append
    },
    "experimental.text.complete": async (hookInput, output) => {
      const start = open.get(hookInput.partID)?.start
      await said(hookInput.sessionID, hookInput.messageID, hookInput.partID, "text", output.text, start)
    },
    "experimental.session.compacting": async (hookInput, output) => {
      const answer = await forward("experimental.session.compacting", hookInput.sessionID, hookInput)
      for (const text of answer.context ?? []) output.context.push(text)
    },
  }
  try {
    const { tool } = await import("@opencode-ai/plugin")
    hooks.tool = {
      observations: tool({
        description:
          "onlooker's observations of this project (findings its observers recorded): list them, " +
          "acknowledge one, resolve one with a note, or clear the resolved ones.",
        args: {
          operation: tool.schema.enum(["list", "get", "acknowledge", "resolve", "clear_resolved"]),
          observation_id: tool.schema.string().optional(),
          resolution_note: tool.schema.string().optional(),
          status: tool.schema.enum(["open", "acknowledged", "resolved", "expired"]).optional(),
          severity: tool.schema.string().optional(),
        },
        async execute(args, context) {
          const answer = await forward("tool", context.sessionID, { name: "observations", args })
          return answer.output ?? JSON.stringify({ status: "error", error: "onlooker did not answer" })
        },
      }),
    }
    const z = tool.schema
    for (const spec of OBSERVER_TOOLS) {
      const required = new Set(spec.schema.required ?? [])
      const args: Shape = {}
      for (const [name, property] of Object.entries(spec.schema.properties ?? {})) {
        const value = schemaOf(z, property)
        args[name] = required.has(name) ? value : value.optional()
      }
      hooks.tool[spec.name] = tool({
        description: spec.description,
        args,
        async execute(given, context) {
          const answer = await forward("tool", context.sessionID, { name: spec.name, args: given })
          return answer.output ?? JSON.stringify({ status: "error", error: "onlooker did not answer" })
        },
      })
    }
  } catch {
    // @opencode-ai/plugin is not installed beside this file: no custom tool, the hooks still run
  }
  return hooks
}

/** A zod schema for one property of an observer tool's JSON schema (as the MCP tools check it). */
function schemaOf(z: Zod, property: JsonProperty): Schema {
  let value: Schema
  if (property.enum && property.enum.length > 0) {
    value = z.enum(property.enum as [string, ...string[]])
  } else if (property.type === "boolean") {
    value = z.boolean()
  } else if (property.type === "integer") {
    let number = z.number().int()
    if (property.minimum !== undefined) number = number.min(property.minimum)
    if (property.maximum !== undefined) number = number.max(property.maximum)
    value = number
  } else {
    let text = z.string()
    if (property.minLength !== undefined) text = text.min(property.minLength)
    if (property.maxLength !== undefined) text = text.max(property.maxLength)
    value = text
  }
  return property.description ? value.describe(property.description) : value
}
