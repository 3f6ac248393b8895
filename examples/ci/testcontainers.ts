// A Testcontainers recipe: model-gateway-mock in a container for one test file (or a globalSetup), on a
// random host port, healthy before the tests start, removed after. The image is one you built from a clone
// (`docker build -t model-gateway-mock .`) or pushed; nothing is published. Bound to 0.0.0.0 inside the
// container, the control plane answers /__admin only with the admin token, which this sets and returns.
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';

export interface StartedGateway {
  /** The server's root URL on the host, e.g. http://127.0.0.1:32768 (its /v1, /__admin... hang from it). */
  url: string;
  adminToken: string;
  container: StartedTestContainer;
}

export async function startGateway(
  options: { image?: string; adminToken?: string; fixtures?: string; args?: string[] } = {},
): Promise<StartedGateway> {
  const adminToken = options.adminToken ?? 'test-admin-token';
  let container = new GenericContainer(options.image ?? 'model-gateway-mock')
    .withEnvironment({ MGM_ADMIN_TOKEN: adminToken })
    .withExposedPorts(4010)
    .withCommand(['--seed', '1', ...(options.args ?? [])])
    .withWaitStrategy(Wait.forHttp('/__admin/health', 4010).forStatusCode(200));
  if (options.fixtures) {
    container = container
      .withBindMounts([{ source: options.fixtures, target: '/fixtures', mode: 'ro' }])
      .withCommand(['--seed', '1', '--fixtures', '/fixtures', ...(options.args ?? [])]);
  }
  const started = await container.start();
  return { url: `http://${started.getHost()}:${started.getMappedPort(4010)}`, adminToken, container: started };
}
