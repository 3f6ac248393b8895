// Vertex AI's model ids: which catalogue model a publisher's model id names, and Vertex's 404 when none.
import { GatewayError } from '../../core/errors.ts';
import type { Catalogue, ModelInfo } from '../../core/models.ts';
import type { Runtime } from '../../runtime.ts';

/** The publishers served here: each serves the catalogue's models of the vendor of that name (`owned_by`). */
export const PUBLISHERS = ['google', 'anthropic'] as const;

/** A Claude version on Vertex AI: `claude-sonnet-4-5@20250929`. */
const AT_VERSION = /@[\w.-]+$/;
/** A Gemini stable version: `gemini-2.0-flash-001`. */
const STABLE_VERSION = /-\d{3}$/;
/** A date written the first-party way, `claude-sonnet-4-5-20250929`: Vertex AI has no such id. */
const DASHED_DATE = /-(\d{8})$/;

/** A served model: the catalogue's id for it (what fixtures, costs and the journal name) and its entry. */
export interface VertexModel {
  id: string;
  info: ModelInfo;
}

/** Vertex AI's 404 for a publisher model it does not have, and what to send instead. */
export function noPublisherModel(resource: string, hint: string): GatewayError {
  return new GatewayError(
    'not_found',
    `Publisher Model \`${resource}\` was not found or your project does not have access to it. ${hint}`,
    { param: 'model' },
  );
}

/**
 * The catalogue model the Vertex id `id` names under `publisher` (`resource` is the model's resource
 * name, for the 404): a Claude `@version` is dropped (`claude-sonnet-4-5@20250929` is
 * `claude-sonnet-4-5`), and a Gemini stable version `-NNN` is its model's when that model is known
 * (`gemini-2.0-flash-001` is `gemini-2.0-flash`; `gemini-embedding-001` stays itself). Any other id
 * resolves as on the direct paths (aliases, families). A name the `deployments` option maps is its
 * model, as an Azure deployment is (the one mapping of a cloud's own names). A model of another
 * publisher is not found.
 */
export function vertexModel(
  runtime: Pick<Runtime, 'catalogue' | 'deployments'>,
  publisher: string,
  id: string,
  resource: string,
): VertexModel {
  if (!(PUBLISHERS as readonly string[]).includes(publisher))
    throw noPublisherModel(resource, `This gateway serves the publishers ${PUBLISHERS.join(' and ')}.`);
  const { catalogue } = runtime;
  const mapped = runtime.deployments.get(id);
  if (mapped !== undefined) return owned(named(catalogue, mapped) as VertexModel, publisher, resource);
  const base = publisher === 'anthropic' ? id.replace(AT_VERSION, '') : id;
  const stable = publisher === 'google' && STABLE_VERSION.test(base) ? base.replace(STABLE_VERSION, '') : undefined;
  const found = (stable !== undefined && named(catalogue, stable)) || named(catalogue, base);
  const dated = publisher === 'anthropic' && !id.includes('@') ? DASHED_DATE.exec(id) : null;
  if (dated) {
    throw noPublisherModel(
      resource,
      `Vertex AI names a Claude version with "@": ${id.slice(0, -dated[0].length)}@${dated[1]} (or the model without a version).`,
    );
  }
  if (!found)
    throw noPublisherModel(resource, `Use a model of the gateway's catalogue (GET /v1beta1/publishers/${publisher}/models lists them).`);
  return owned(found, publisher, resource);
}

/** `found`, when `publisher` publishes it; else Vertex's 404 saying where it is. */
function owned(found: VertexModel, publisher: string, resource: string): VertexModel {
  if (found.info.owned_by !== publisher) {
    throw noPublisherModel(
      resource,
      `${found.id} is published by ${found.info.owned_by}${(PUBLISHERS as readonly string[]).includes(found.info.owned_by) ? `: call it under publishers/${found.info.owned_by}` : ', which Vertex AI does not serve here'}.`,
    );
  }
  return found;
}

function named(catalogue: Catalogue, id: string): VertexModel | undefined {
  const info = catalogue.get(id);
  return info && { id, info };
}
