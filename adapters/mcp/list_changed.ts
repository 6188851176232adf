/**
 * `notifications/tools/list_changed` for several listeners on one MCP
 * client. The SDK's `Client` keeps one handler per notification method
 * (`setNotificationHandler` replaces), so while anyone listens this module
 * puts one dispatcher in the client's handler map: it calls every listener,
 * then the application's own handler. A handler the application sets or
 * removes meanwhile (`setNotificationHandler`, `removeNotificationHandler`,
 * the client's `listChanged` option at connect) becomes that application
 * handler; when the last listener leaves, it is put back in the map.
 *
 * The handler map is the SDK's internal `_notificationHandlers` (1.x): no
 * public API lets two parties observe one notification.
 *
 * @module
 */

import { Observable } from "rxjs";
import { quote, SystemPromptError } from "../../src/errors.ts";

/** The MCP notification a server sends when its tool list changed. */
export const TOOLS_LIST_CHANGED = "notifications/tools/list_changed";

type Handler = (notification: unknown) => unknown;

interface Dispatch {
  readonly listeners: Set<() => void>;
  application: Handler | undefined;
  release(): void;
}

const dispatches = new WeakMap<object, Dispatch>();

/**
 * Emits each time `client` receives `notifications/tools/list_changed`,
 * alongside every other listener and the application's handler.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` (on subscription) for a
 * client without the SDK's notification handler map.
 */
export function toolsListChanged$(client: object): Observable<void> {
  return new Observable<void>((subscriber) => {
    const dispatch = dispatchOf(client);
    const listener = () => subscriber.next();
    dispatch.listeners.add(listener);
    return () => {
      dispatch.listeners.delete(listener);
      if (dispatch.listeners.size === 0) dispatch.release();
    };
  });
}

function dispatchOf(client: object): Dispatch {
  const existing = dispatches.get(client);
  if (existing !== undefined) return existing;
  const handlers = (client as { _notificationHandlers?: unknown })
    ._notificationHandlers;
  if (!(handlers instanceof Map)) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `The MCP client has no notification handler map (got ` +
        `${quote(handlers)}); mcpTools needs a Client of ` +
        `@modelcontextprotocol/sdk 1.x to hear ${TOOLS_LIST_CHANGED}.`,
    );
  }
  const map = handlers as Map<string, Handler>;
  const dispatch: Dispatch = {
    listeners: new Set(),
    application: map.get(TOOLS_LIST_CHANGED),
    release,
  };
  async function dispatcher(notification: unknown): Promise<void> {
    for (const listener of [...dispatch.listeners]) listener();
    await dispatch.application?.(notification);
  }
  intercept(map, dispatch);
  Map.prototype.set.call(map, TOOLS_LIST_CHANGED, dispatcher);
  dispatches.set(client, dispatch);
  function release(): void {
    dispatches.delete(client);
    delete (map as Partial<Map<string, Handler>>).set;
    delete (map as Partial<Map<string, Handler>>).delete;
    if (dispatch.application === undefined) map.delete(TOOLS_LIST_CHANGED);
    else map.set(TOOLS_LIST_CHANGED, dispatch.application);
  }
  return dispatch;
}

/** Routes the application's writes of the method to `dispatch.application`. */
function intercept(map: Map<string, Handler>, dispatch: Dispatch): void {
  Object.defineProperty(map, "set", {
    configurable: true,
    writable: true,
    value(key: string, value: Handler) {
      if (key !== TOOLS_LIST_CHANGED) {
        return Map.prototype.set.call(map, key, value);
      }
      dispatch.application = value;
      return map;
    },
  });
  Object.defineProperty(map, "delete", {
    configurable: true,
    writable: true,
    value(key: string) {
      if (key !== TOOLS_LIST_CHANGED) {
        return Map.prototype.delete.call(map, key);
      }
      const had = dispatch.application !== undefined;
      dispatch.application = undefined;
      return had;
    },
  });
}
