// The home page: copy buttons.
import { wireCopyButtons } from './common.ts';

wireCopyButtons();
