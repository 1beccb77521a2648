export function PersonalPage() {
  return null;
}
