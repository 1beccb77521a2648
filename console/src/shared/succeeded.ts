/** Awaits an RTK Query call and answers whether it succeeded (failures are already toasted). */
export function succeeded(call: { unwrap: () => Promise<unknown> }): Promise<boolean> {
  return call.unwrap().then(
    () => true,
    () => false,
  );
}
