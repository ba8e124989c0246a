import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { FluentProvider, webLightTheme } from '@fluentui/react-components';
import { Root } from './Root';
import './index.css';

const root = createRoot(document.getElementById('root')!);
root.render(
  <StrictMode>
    <FluentProvider theme={webLightTheme}>
      <Root />
    </FluentProvider>
  </StrictMode>,
);
