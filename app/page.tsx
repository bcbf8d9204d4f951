export const dynamic = 'force-dynamic';

export default function Home() {
  return (
    <main className="mx-auto max-w-2xl p-8">
      <h1 className="text-2xl font-semibold">Clamp</h1>
      <p className="mt-2 text-zinc-600 dark:text-zinc-400">Workspace: {process.env.CLAMP_WORKSPACE ?? '(not set)'}</p>
    </main>
  );
}
