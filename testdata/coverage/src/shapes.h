/* shapes.h - areas. */
int area(int w, int h);
int perimeter(int w, int h);
