// The image types shared by the drawing code and the worker pool: a leaf, so neither imports the other for them.
/** 8-bit RGBA pixels, row by row. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

export type ImageFormat = 'png' | 'jpeg' | 'webp';

export interface PictureOptions {
  /** A see-through background (alpha 0), shapes opaque. */
  transparent?: boolean;
  /** Draw only the first this-many shapes (a partial image while streaming). */
  shapes?: number;
}
