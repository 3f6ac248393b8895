// The one piece of fflate the PNG reader uses, as its own module: png.ts loads it on first use, and a
// browser bundle then keeps only this export of fflate (a dynamic import of fflate itself keeps all of it).
export { Unzlib } from 'fflate';
