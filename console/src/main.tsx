import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createDOMRenderer, FluentProvider, RendererProvider, webLightTheme } from '@fluentui/react-components';
import { Root } from './Root';
import './index.css';

// Fluent UI writes its CSS into style elements at run time; the page's CSP admits them by this nonce only.
const nonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content;
const renderer = createDOMRenderer(document, nonce ? { styleElementAttributes: { nonce } } : {});

const root = createRoot(document.getElementById('root')!);
root.render(
  <StrictMode>
    <RendererProvider renderer={renderer} targetDocument={document}>
      <FluentProvider theme={webLightTheme}>
        <Root />
      </FluentProvider>
    </RendererProvider>
  </StrictMode>,
);
