// What the service makes of Chromium's protocol events, for the real-browser tests that map them:
// the data its browser monitor writes for Runtime.consoleAPICalled, Runtime.exceptionThrown,
// Network.requestWillBeSent and Page.frameNavigated (docs/service-api.md "Event types and
// categories", docs/mapping.md "The event context"), and for the network's end and the page's
// lifecycle (Network.responseReceived + loadingFinished, Network.loadingFailed, Page.loadEventFired,
// Page.domContentEventFired) in serviceNetworkEnd and servicePageEvent. Only the members the bridge
// reads are written; the event context is added by the caller, which knows the page the target shows.

/** A console argument as CDP sends it (Runtime.RemoteObject, the members the service reads). */
export interface RemoteObject {
  type: string;
  value?: unknown;
}

/**
 * One console argument as the service writes it: a string as it is, another value as its JSON, and
 * an argument without a value (an object, a Symbol, undefined) as its type.
 */
export function consoleArg(a: RemoteObject): string {
  if (a.value === undefined) return a.type;
  return typeof a.value === 'string' ? a.value : JSON.stringify(a.value);
}

export interface ServiceEvent {
  type: string;
  category: string;
  data: Record<string, unknown>;
}

/** The service's event for one CDP event, or undefined for the methods it makes none of here. */
export function serviceEvent(method: string, p: Record<string, unknown>): ServiceEvent | undefined {
  switch (method) {
    case 'Runtime.consoleAPICalled': {
      const args = (p.args as RemoteObject[]).map(consoleArg);
      return {
        type: p.type === 'error' ? 'console_error' : 'console_log',
        category: 'console',
        data: { level: p.type, text: args[0] ?? '', args, stack_trace: p.stackTrace },
      };
    }
    case 'Runtime.exceptionThrown': {
      const d = p.exceptionDetails as Record<string, unknown>;
      // A Go string member: an exception without a url (eval'd code, a data: document) is "".
      return {
        type: 'console_error',
        category: 'console',
        data: {
          text: d.text,
          line: d.lineNumber,
          column: d.columnNumber,
          source_url: d.url ?? '',
          stack_trace: d.stackTrace,
        },
      };
    }
    case 'Network.requestWillBeSent': {
      const request = p.request as { url: string; method: string; headers: Record<string, unknown> };
      return {
        type: 'network_request',
        category: 'network',
        data: {
          request_id: p.requestId,
          loader_id: p.loaderId,
          frame_id: p.frameId ?? '',
          document_url: p.documentURL,
          method: request.method,
          url: request.url,
          headers: request.headers,
          initiator_type: (p.initiator as { type: string }).type,
          ...(typeof p.type === 'string' ? { resource_type: p.type } : {}),
          // A redirect's next hop: CDP sends it under the same requestId, with the hop that answered
          // the redirect as redirectResponse (which gets no network_response of its own: the service
          // sends those at loadingFinished, which a redirect never reaches).
          ...(p.redirectResponse === undefined
            ? {}
            : { is_redirect: true, redirect_url: (p.redirectResponse as { url: string }).url }),
        },
      };
    }
    case 'Page.frameNavigated': {
      const frame = p.frame as { id: string; url: string; loaderId: string; parentId?: string };
      return {
        type: 'page_navigation',
        category: 'page',
        data: { url: frame.url, frame_id: frame.id, parent_frame_id: frame.parentId ?? '', loader_id: frame.loaderId },
      };
    }
    default:
      return undefined;
  }
}

/**
 * The service's end of one request: `network_response` from its Network.responseReceived (`response`,
 * written when loadingFinished follows: the service sends it once the body is received), or
 * `network_loading_failed` from Network.loadingFailed (`failed`).
 */
export function serviceNetworkEnd(
  how: { response: Record<string, unknown> } | { failed: Record<string, unknown> },
): ServiceEvent {
  if ('failed' in how) {
    const p = how.failed;
    return {
      type: 'network_loading_failed',
      category: 'network',
      data: {
        request_id: p.requestId,
        error_text: p.errorText,
        canceled: p.canceled === true,
        ...(typeof p.type === 'string' ? { resource_type: p.type } : {}),
      },
    };
  }
  const p = how.response;
  const r = p.response as { url: string; status: number; statusText: string; headers: unknown; mimeType: string };
  return {
    type: 'network_response',
    category: 'network',
    data: {
      request_id: p.requestId,
      url: r.url,
      status: r.status,
      status_text: r.statusText,
      headers: r.headers,
      mime_type: r.mimeType,
      ...(typeof p.type === 'string' ? { resource_type: p.type } : {}),
    },
  };
}

/** The service's `page_load` / `page_dom_content_loaded` for Page.loadEventFired / domContentEventFired. */
export function servicePageEvent(method: string, p: Record<string, unknown>): ServiceEvent | undefined {
  const type =
    method === 'Page.loadEventFired'
      ? 'page_load'
      : method === 'Page.domContentEventFired'
        ? 'page_dom_content_loaded'
        : undefined;
  return type === undefined ? undefined : { type, category: 'page', data: { cdp_timestamp: p.timestamp } };
}
