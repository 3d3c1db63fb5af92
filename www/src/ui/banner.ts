/**
 * Dismissable banners: the error banner (role=alert) and the notice banner (role=status).
 * The markup lives in index.html; this only fills and toggles it.
 */
export class Banner {
  private readonly text: HTMLElement;

  constructor(private readonly root: HTMLElement) {
    const text = root.querySelector<HTMLElement>('.banner-text');
    if (!text) throw new Error('banner is missing .banner-text');
    this.text = text;
    root.querySelector('.banner-close')?.addEventListener('click', () => {
      this.hide();
    });
  }

  show(message: string): void {
    this.text.textContent = message;
    this.root.hidden = false;
  }

  hide(): void {
    this.root.hidden = true;
    this.text.textContent = '';
  }

  get visible(): boolean {
    return !this.root.hidden;
  }
}
