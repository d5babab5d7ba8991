export abstract class Shape implements Drawable, Comparable<Shape> {
  protected abstract area(): number;
  private cache: Map<string, number> = new Map();
  public static count = 0;
  #id = 0;

  constructor(private readonly name: string) {
    Shape.count++;
  }

  /** Draws the shape. */
  draw(ctx: Canvas): void {
    ctx.fill(this.area());
  }

  private log(msg: string) {
    console.log(msg);
  }

  get label(): string {
    return this.name;
  }
}

export class Circle extends Shape {
  constructor(public r: number) {
    super("circle");
  }
  protected area(): number {
    return Math.PI * this.r ** 2;
  }
}

class Helper<T> {
  items: T[] = [];
  add = (item: T): void => {
    this.items.push(item);
  };
}

export default Helper;
