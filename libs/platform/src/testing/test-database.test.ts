import { chooseTestDatabase, dockerAnswers } from './test-database';

describe('test database selection', () => {
  it('should take TEST_DATABASE_URL first, without asking for Docker', async () => {
    const probe = jest.fn(async () => true);
    await expect(chooseTestDatabase({ TEST_DATABASE_URL: 'postgresql://db.example/postgres' }, probe)).resolves.toBe('url');
    expect(probe).not.toHaveBeenCalled();
  });

  it('should take a container when a Docker engine answers, the embedded server otherwise', async () => {
    await expect(chooseTestDatabase({}, async () => true)).resolves.toBe('container');
    await expect(chooseTestDatabase({}, async () => false)).resolves.toBe('embedded');
  });

  it('should say no when DOCKER_HOST points at nothing that answers', async () => {
    await expect(dockerAnswers({ DOCKER_HOST: 'tcp://127.0.0.1:1' })).resolves.toBe(false);
  });
});
